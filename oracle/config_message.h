// The vendor configuration message (TCODE 56, docs/encoder-behaviour.md section 11.9): a
// self-describing stream names its format version, the compiled and the enabled features and
// the implicit-return depth before every SYNC=5. Written by the reference encoder (the RTL
// forms the same bytes), found by ctte-lab decode and the judges.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "oracle/features.h"

namespace ctte::oracle {

constexpr uint8_t kTcodeConfig = 56;
constexpr uint8_t kConfigVersion = 1;

/// Feature bits of ctteFeatureCaps 7:0 and of the message's COMPILED / ENABLED fields.
constexpr uint32_t kFeatureBitImplicitReturn = 1u << 0;
constexpr uint32_t kFeatureBitConfigMessage = 1u << 3;
constexpr uint32_t kFeatureBitRepeatedHistory = 1u << 4;
constexpr uint32_t kFeatureBitRepeatBranch = 1u << 5;
constexpr uint32_t kFeatureBitSequentialJump = 1u << 6;
constexpr uint32_t kFeatureBitFullAddress = 1u << 7;
/// Every feature this encoder implements (the software encoder's default COMPILED).
constexpr uint32_t kImplementedFeatureBits =
    kFeatureBitImplicitReturn | kFeatureBitConfigMessage | kFeatureBitRepeatedHistory |
    kFeatureBitRepeatBranch | kFeatureBitSequentialJump | kFeatureBitFullAddress;

uint32_t FeatureBits(const FeatureSet& f);

struct StreamConfig {
  uint64_t offset = 0;  ///< byte offset of the message
  uint32_t version = 0;
  uint64_t compiled = 0;
  uint64_t enabled = 0;
  uint64_t depth = 0;
  FeatureSet features;  ///< `enabled` and `depth` as a FeatureSet
};

/// Appends the message's bytes (MDO/MSEO, section 8) to *out.
void AppendConfigMessage(uint64_t compiled, const FeatureSet& enabled, std::vector<uint8_t>* out);

/// Every configuration message of `bytes`, in order (framing by MSEO, idle bytes skipped). A
/// TCODE 56 message that does not have this layout, or another VERSION, is an error naming its
/// byte offset.
Result<std::vector<StreamConfig>> FindConfigMessages(std::span<const uint8_t> bytes);

/// What a decoder runs with (section 11.9): the stream's configuration messages when it has
/// any, else `given` (--features), else no feature.
struct FeatureChoice {
  FeatureSet features;               ///< before the first configuration message
  std::vector<StreamConfig> configs; ///< apply each at its offset (it precedes a SYNC=5)
  std::string mismatch;              ///< non-empty when `given` disagrees with the stream
};
Result<FeatureChoice> ChooseFeatures(std::span<const uint8_t> bytes, const FeatureSet* given);

/// The features of `f` other than implicit return that `caps` (ctteFeatureCaps) lacks, as
/// "sequential-jump,full-address"; "" when the image compiles them all.
std::string MissingFeatures(const FeatureSet& f, uint32_t caps);

/// True when the message at [offset, offset + size) of `bytes` is a well-formed configuration
/// message (the judges accept it; any other vendor message stays unknown).
bool IsConfigMessage(std::span<const uint8_t> bytes, uint64_t offset, uint64_t size);

}  // namespace ctte::oracle
