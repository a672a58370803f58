// Seeded drawing of run configurations.
//
// What and how (bit for bit in docs/campaign-spec.md, "Seeds and drawing"):
//   seed_i = RunSeed(campaign seed, i)
//   twin   = i odd and Rng(DeriveSeed(seed_i, "twin")).Chance(ppm, 10^6): run i repeats run i-1
//   each axis A: value = A.values[Rng(DeriveSeed(seed_i, A)).Weighted(weights)]
//   image:       same with the stream "image"
//   features:    same with the stream "features", unless the axis is just "none"; the image's
//                capabilities play no part (the clamp to them is PrepareRun's, see plan.h)
//   schedules:   interrupt indices from "interrupt_schedule", window edges from "window_edges"
//   board seeds: DeriveSeed(seed_i, "stall" | "sink" | "program")
// Every draw has its own named sub-stream, so changing one axis never moves another.
#include "runner/draw.h"

#include <cstring>
#include <set>

#include "base/check.h"
#include "base/random.h"

namespace ctte::runner {
namespace {

constexpr OverflowRegimeRow kRegimes[] = {
    {"none", 1, 50},
    {"sparse", 2, 50},
    {"moderate", 4, 25},
    {"saturating", 8, 0},
};

const std::string& DrawValue(const std::vector<WeightedValue>& values, uint64_t run_seed,
                             const char* stream) {
  CTTE_CHECK(!values.empty(), "Draw: an axis has no values (spec not validated?)");
  std::vector<uint64_t> weights;
  weights.reserve(values.size());
  for (const WeightedValue& v : values) weights.push_back(v.weight);
  Rng rng(DeriveSeed(run_seed, stream));
  return values[rng.Weighted(weights)].value;
}

uint64_t Between(Rng& rng, uint64_t lo, uint64_t hi) {
  return static_cast<uint64_t>(rng.Between(static_cast<int64_t>(lo), static_cast<int64_t>(hi)));
}

void DrawInterrupts(RunConfig* c, uint64_t horizon) {
  Rng rng(DeriveSeed(c->seed, "interrupt_schedule"));
  if (c->interrupts == "sparse") {
    const uint64_t count = Between(rng, 1, 8);
    std::set<uint64_t> at;
    while (at.size() < count) at.insert(Between(rng, 1, horizon - 1));
    c->interrupt_at.assign(at.begin(), at.end());
  } else if (c->interrupts == "storm") {
    c->interrupt_every = Between(rng, 16, 256);
  }
}

void DrawWindow(RunConfig* c, uint64_t h) {
  Rng rng(DeriveSeed(c->seed, "window_edges"));
  if (c->window == "late_start") {
    c->window_start = Between(rng, h / 8, h / 2 - 1);
  } else if (c->window == "pause_resume") {
    const uint64_t pause = Between(rng, h / 8, h / 2 - 1);
    c->window_pause = pause;
    c->window_resume = pause + Between(rng, h / 16, h / 4);
  } else if (c->window == "early_stop") {
    c->window_stop = Between(rng, h / 4, 3 * h / 4 - 1);
  }
}

}  // namespace

const OverflowRegimeRow* FindOverflowRegime(const char* name) {
  for (const OverflowRegimeRow& row : kRegimes) {
    if (std::strcmp(row.name, name) == 0) return &row;
  }
  return nullptr;
}

bool IsTwin(const CampaignSpec& spec, uint64_t index) {
  if (index % 2 == 0 || spec.determinism_pairs_ppm == 0) return false;
  Rng rng(DeriveSeed(RunSeed(spec.seed, index), "twin"));
  return rng.Chance(spec.determinism_pairs_ppm, 1'000'000);
}

RunConfig Draw(const CampaignSpec& spec, uint64_t index) {
  if (IsTwin(spec, index)) {
    RunConfig twin = Draw(spec, index - 1);  // index - 1 is even, so never itself a twin
    twin.index = index;
    twin.twin_of = index - 1;
    return twin;
  }
  RunConfig c;
  c.campaign = spec.name;
  c.index = index;
  c.seed = RunSeed(spec.seed, index);
  c.image = DrawValue(spec.images, c.seed, "image");
  c.overflow_regime = DrawValue(spec.axis("overflow_regime").values, c.seed, "overflow_regime");
  c.backpressure = DrawValue(spec.axis("backpressure").values, c.seed, "backpressure");
  c.mode = DrawValue(spec.axis("mode").values, c.seed, "mode");
  c.sync = DrawValue(spec.axis("sync").values, c.seed, "sync");
  c.workload = DrawValue(spec.axis("workload").values, c.seed, "workload");
  c.window = DrawValue(spec.axis("window").values, c.seed, "window");
  c.interrupts = DrawValue(spec.axis("interrupts").values, c.seed, "interrupts");
  // A spec without a features axis (or with only "none") draws nothing here and leaves
  // features empty, so its configs carry no "features" key: the JSON they always were.
  const std::vector<WeightedValue>& features = spec.axis("features").values;
  if (!(features.size() == 1 && features[0].value == AxisDefault("features"))) {
    c.features = DrawValue(features, c.seed, "features");
  }
  c.fabric_mhz = static_cast<uint32_t>(
      std::stoul(DrawValue(spec.axis("fabric_mhz").values, c.seed, "fabric_mhz")));

  const OverflowRegimeRow* regime = FindOverflowRegime(c.overflow_regime.c_str());
  CTTE_CHECK(regime != nullptr, "Draw: unknown overflow regime (spec not validated?)");
  c.fabric_hz = uint64_t{c.fabric_mhz} * 1'000'000;
  c.sink_hz = uint64_t{spec.sink_mhz} * 1'000'000 / regime->sink_divisor;
  c.core_stall_percent = regime->core_stall_percent;

  std::string why;
  auto bp = ParseBackpressure(c.backpressure, &why);
  CTTE_CHECK(bp.has_value(), "Draw: bad backpressure value (spec not validated?)");
  c.backpressure_params = *bp;
  auto sync = ParseSyncPolicy(c.sync, &why);
  CTTE_CHECK(sync.has_value(), "Draw: bad sync value (spec not validated?)");
  c.sync_params = *sync;

  DrawInterrupts(&c, spec.horizon_retirements);
  DrawWindow(&c, spec.horizon_retirements);
  c.stall_seed = DeriveSeed(c.seed, "stall");
  c.sink_seed = DeriveSeed(c.seed, "sink");
  c.program_seed = DeriveSeed(c.seed, "program");
  return c;
}

}  // namespace ctte::runner
