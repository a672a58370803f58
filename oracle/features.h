// Optional N-Trace compression features (docs/encoder-behaviour.md section 11): the one value
// that the reference encoder, the decoder, the CLI (`--features LIST`) and the lab share.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace ctte::oracle {

/// The largest implicit-return stack the spec allows (trTeInstImplicitReturnMode 3).
constexpr uint32_t kMaxReturnStackDepth = 32;

struct FeatureSet {
  /// Implicit return with a full-address stack of this many entries; 0 = off.
  uint32_t implicit_return_depth = 0;
  /// Repeated history: ResourceFull RCODE 2 with HREPEAT (section 11.3; HTM).
  bool repeated_history = false;
  /// RepeatBranch: TCODE 30 with B-CNT (section 11.4; BTM).
  bool repeat_branch = false;
  /// Sequential jump (section 11.7): a jalr whose rs1 the previous LUI/C.LUI/AUIPC set is
  /// inferable.
  bool sequential_jump = false;
  /// Full addresses (trTeInstNoAddrDiff, section 11.8): U-ADDR carries a >> 1.
  bool full_address = false;
  /// The vendor configuration message before every SYNC=5 (section 11.9).
  bool config_message = false;

  bool empty() const {
    return implicit_return_depth == 0 && !repeated_history && !repeat_branch && !sequential_jump &&
           !full_address && !config_message;
  }
  bool operator==(const FeatureSet&) const = default;
};

/// Parses "implicit-return[:DEPTH]", "repeated-history", "repeat-branch", "sequential-jump",
/// "full-address" and "config-message" entries separated by commas ("" and "none" are the empty
/// set). DEPTH is 1..32 and defaults to `default_depth`. Unknown names are errors that name the
/// entry; `what` names the flag or JSON path.
Result<FeatureSet> ParseFeatures(std::string_view text, std::string_view what,
                                 uint32_t default_depth = kMaxReturnStackDepth);
/// "none" or "implicit-return:16,repeated-history,repeat-branch,sequential-jump,full-address,
/// config-message" (the form ParseFeatures reads back), always in that order.
std::string FormatFeatures(const FeatureSet& f);

}  // namespace ctte::oracle
