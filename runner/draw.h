// Seeded drawing: run i of a campaign is a pure function of (spec, i).
//
// Each axis draws from its own sub-stream, DeriveSeed(run seed, axis name), so adding an axis or
// changing one axis's values never shifts the draws of the others. The rules (bit for bit) are in
// docs/campaign-spec.md, "Seeds and drawing", and pinned by tests/runner/golden/smoke_draws.json.
#pragma once

#include <cstdint>

#include "runner/campaign_spec.h"
#include "runner/run_config.h"

namespace ctte::runner {

/// Sink clock divisor and core stall chance of each overflow regime (docs/campaign-spec.md).
struct OverflowRegimeRow {
  const char* name;
  uint32_t sink_divisor;        ///< sink clock = clocks.sink_mhz / divisor
  uint32_t core_stall_percent;  ///< idle fabric cycles between beats (lower = more pressure)
};
const OverflowRegimeRow* FindOverflowRegime(const char* name);

/// True if run `index` is a determinism twin that repeats run index - 1 (odd indices only).
bool IsTwin(const CampaignSpec& spec, uint64_t index);

/// The configuration of run `index`. Precondition: spec came from a successful parse.
RunConfig Draw(const CampaignSpec& spec, uint64_t index);

}  // namespace ctte::runner
