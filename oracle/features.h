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

  bool empty() const { return implicit_return_depth == 0 && !repeated_history && !repeat_branch; }
  bool operator==(const FeatureSet&) const = default;
};

/// Parses "implicit-return[:DEPTH]", "repeated-history" and "repeat-branch" entries separated by
/// commas ("" and "none" are the empty set). DEPTH is 1..32 and defaults to `default_depth`.
/// Names that are recognised but not implemented ("sequential-jump", "full-address") and
/// unknown names are errors that name the entry; `what` names the flag or JSON path.
Result<FeatureSet> ParseFeatures(std::string_view text, std::string_view what,
                                 uint32_t default_depth = kMaxReturnStackDepth);
/// "none" or "implicit-return:16,repeated-history,repeat-branch" (the form ParseFeatures reads
/// back), always in that order.
std::string FormatFeatures(const FeatureSet& f);

}  // namespace ctte::oracle
