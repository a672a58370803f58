// Bisect (see bisect.h): legs, statistics, pairs and the greedy minimization.
#include "runner/bisect.h"

#include <algorithm>
#include <cmath>

#include "base/random.h"
#include "base/wilson.h"
#include "runner/axis_values.h"
#include "runner/draw.h"

namespace ctte::runner {

Interval WilsonInterval(uint64_t k, uint64_t n, double z) {
  const auto [lo, hi] = WilsonBounds(k, n, z);
  return {lo, hi};
}

const char* LegKindName(LegKind kind) {
  switch (kind) {
    case LegKind::kOriginal: return "original";
    case LegKind::kSingle: return "single";
    case LegKind::kPair: return "pair";
    case LegKind::kMinimize: return "minimize";
    case LegKind::kSameBoard: return "same_board";
    case LegKind::kOtherBoard: return "other_board";
  }
  return "?";
}

const char* LegVerdictName(LegVerdict verdict) {
  switch (verdict) {
    case LegVerdict::kReference: return "reference";
    case LegVerdict::kCulprit: return "culprit";
    case LegVerdict::kInnocent: return "innocent";
    case LegVerdict::kInconclusive: return "inconclusive";
    case LegVerdict::kNotRun: return "not_run";
  }
  return "?";
}

const char* BisectVerdictName(BisectVerdict verdict) {
  switch (verdict) {
    case BisectVerdict::kCulprit: return "culprit";
    case BisectVerdict::kNeedsAll: return "needs_all";
    case BisectVerdict::kEitherOf: return "either_of";
    case BisectVerdict::kNoCulprit: return "no_culprit";
    case BisectVerdict::kNotReproduced: return "not_reproduced";
    case BisectVerdict::kInfrastructure: return "infrastructure";
  }
  return "?";
}

uint64_t Leg::red() const {
  return static_cast<uint64_t>(
      std::count_if(runs.begin(), runs.end(), [](const LegRun& r) { return r.reproduces; }));
}
uint64_t Leg::other_red() const {
  return static_cast<uint64_t>(std::count_if(runs.begin(), runs.end(), [](const LegRun& r) {
    return r.status == RunStatus::kRed && !r.reproduces;
  }));
}
Interval Leg::interval() const {
  const stats::Bounds b = stats::ClopperPearson(red(), judged(), 0.05);
  return {b.lo, b.hi};
}
uint64_t Leg::judged() const {
  return static_cast<uint64_t>(std::count_if(runs.begin(), runs.end(), [](const LegRun& r) {
    return r.status == RunStatus::kRed || r.status == RunStatus::kGreen;
  }));
}
uint64_t Leg::unsound() const { return runs.size() - judged(); }

std::string Leg::Label() const {
  if (factors.empty()) return "(original)";
  std::string s;
  for (const std::string& f : factors) s += (s.empty() ? "" : "+") + f;
  return s;
}

LegTest PairedTest(const Leg& leg, const Leg& original, double alpha) {
  LegTest t;
  auto judged = [](const LegRun& r) {
    return r.status == RunStatus::kRed || r.status == RunStatus::kGreen;
  };
  for (const LegRun& o : original.runs) {
    if (!judged(o)) continue;
    for (const LegRun& l : leg.runs) {
      if (l.repeat != o.repeat || !judged(l)) continue;
      ++t.paired;
      if (o.reproduces && !l.reproduces) ++t.b;
      if (!o.reproduces && l.reproduces) ++t.c;
    }
  }
  t.p = stats::SignTestP(t.b, t.c);
  t.effect = stats::PairedEffect(t.b, t.c, t.paired, alpha);
  return t;
}

std::vector<Factor> DifferingFactors(const RunConfig& red, const RunConfig& baseline) {
  std::vector<Factor> out;
  if (red.image != baseline.image) out.push_back({"image", red.image, baseline.image});
  for (const internal::AxisDef& def : internal::AxisDefs()) {
    const std::string a = def.get(red), b = def.get(baseline);
    if (a != b) out.push_back({def.name, a, b});
  }
  return out;
}

Status RevertFactor(RunConfig* c, const RunConfig& b, const std::string& factor) {
  if (factor == "image") {
    c->image = b.image;
    return Status::Ok();
  }
  const internal::AxisDef* def = internal::FindAxisDef(factor);
  if (def == nullptr) return Status::InvalidArgument("unknown factor \"" + factor + "\"");
  def->revert(c, b);
  return Status::Ok();
}

RunConfig RepeatConfig(const RunConfig& leg_config, uint64_t base_seed, uint32_t repeat) {
  RunConfig c = leg_config;
  c.seed = DeriveSeed(base_seed, ("triage-repeat:" + std::to_string(repeat)).c_str());
  c.stall_seed = DeriveSeed(c.seed, "stall");
  c.sink_seed = DeriveSeed(c.seed, "sink");
  c.twin_of.reset();
  c.control.reset();
  return c;
}

RunConfig SpecBaseline(const CampaignSpec& spec, const RunConfig& red) {
  CampaignSpec first = spec;
  first.images = {WeightedValue{red.image, 1}};
  for (Axis& a : first.axes) {
    if (a.values.size() > 1) a.values.resize(1);
  }
  first.determinism_pairs_ppm = 0;
  RunConfig b = Draw(first, red.index);
  b.seed = red.seed;  // the legs keep the red run's seeds; only factor values come from here
  return b;
}

}  // namespace ctte::runner
