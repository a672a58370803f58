// Bisect (see bisect.h): legs, statistics, pairs and the greedy minimization.
#include "runner/bisect.h"

#include <algorithm>
#include <cmath>

#include "base/random.h"
#include "runner/axis_values.h"
#include "runner/draw.h"

namespace ctte::runner {

Interval WilsonInterval(uint64_t k, uint64_t n, double z) {
  if (n == 0) return {0.0, 1.0};
  const double nn = static_cast<double>(n);
  const double p = static_cast<double>(k) / nn;
  const double z2 = z * z;
  const double denom = 1.0 + z2 / nn;
  const double centre = (p + z2 / (2.0 * nn)) / denom;
  const double half = z * std::sqrt(p * (1.0 - p) / nn + z2 / (4.0 * nn * nn)) / denom;
  return {std::max(0.0, centre - half), std::min(1.0, centre + half)};
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
    case BisectVerdict::kInteraction: return "interaction";
    case BisectVerdict::kNoCulprit: return "no_culprit";
    case BisectVerdict::kNotReproduced: return "not_reproduced";
    case BisectVerdict::kInfrastructure: return "infrastructure";
  }
  return "?";
}

uint64_t Leg::red() const {
  return static_cast<uint64_t>(std::count_if(
      runs.begin(), runs.end(), [](const LegRun& r) { return r.status == RunStatus::kRed; }));
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

LegVerdict JudgeLeg(const Leg& leg, const Leg& original) {
  if (leg.judged() == 0 || original.judged() == 0) return LegVerdict::kInconclusive;
  const Interval l = leg.interval(), o = original.interval();
  if (l.hi < o.lo) return LegVerdict::kCulprit;
  const double pl = leg.rate(), po = original.rate();
  constexpr double kEps = 1e-9;
  if (leg.red() > 0 && po >= l.lo - kEps && po <= l.hi + kEps && pl >= o.lo - kEps &&
      pl <= o.hi + kEps) {
    return LegVerdict::kInnocent;
  }
  return LegVerdict::kInconclusive;
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

namespace {

// Runs every leg's repeats in one batch (so a pool of boards runs them in parallel).
void RunLegs(const std::vector<Leg*>& legs, uint32_t repeats, uint64_t base_seed,
             const BatchExecutor& exec) {
  std::vector<RunConfig> batch;
  for (Leg* leg : legs) {
    for (uint32_t r = 0; r < repeats; ++r) batch.push_back(RepeatConfig(leg->config, base_seed, r));
  }
  std::vector<LegRun> runs = exec(batch);
  size_t i = 0;
  for (Leg* leg : legs) {
    leg->runs.clear();
    for (uint32_t r = 0; r < repeats && i < runs.size(); ++r, ++i) {
      runs[i].repeat = r;
      runs[i].seed = batch[i].seed;
      leg->runs.push_back(std::move(runs[i]));
    }
  }
}

bool TooUnsound(const std::vector<Leg>& legs, double max_fraction) {
  uint64_t all = 0, bad = 0;
  for (const Leg& l : legs) {
    all += l.runs.size();
    bad += l.unsound();
  }
  return all > 0 && static_cast<double>(bad) > max_fraction * static_cast<double>(all);
}

std::string Percent(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", 100.0 * x);
  return buf;
}

std::string RateText(const Leg& l) {
  const Interval i = l.interval();
  return std::to_string(l.red()) + "/" + std::to_string(l.judged()) + " red (95% " +
         Percent(i.lo) + "-" + Percent(i.hi) + ")";
}

Result<Leg> MakeLeg(LegKind kind, const RunConfig& from, const RunConfig& baseline,
                    const std::vector<std::string>& factors) {
  Leg leg;
  leg.kind = kind;
  leg.factors = factors;
  leg.config = from;
  for (const std::string& f : factors) {
    CTTE_RETURN_IF_ERROR(RevertFactor(&leg.config, baseline, f));
  }
  return leg;
}

// The configuration of the first red repeat of leg `i` (the leg went red at least once).
RunConfig FirstRedRepeat(const Leg& leg, uint64_t base_seed) {
  for (const LegRun& r : leg.runs) {
    if (r.status == RunStatus::kRed) return RepeatConfig(leg.config, base_seed, r.repeat);
  }
  return leg.config;
}

Status Minimize(BisectResult* out, const RunConfig& red, const RunConfig& baseline,
              const BisectOptions& o, const BatchExecutor& exec) {
  std::vector<std::string> drop;
  for (const Factor& f : out->differing) {
    if (std::find(out->culprits.begin(), out->culprits.end(), f.name) == out->culprits.end()) {
      drop.push_back(f.name);
    }
  }
  size_t best = 0;  // index of the last red leg on the way to the baseline (0: the original)
  std::vector<std::string> reverted;
  auto still_red = [&](const Leg& leg) {
    return leg.red() > 0 && JudgeLeg(leg, out->legs[0]) != LegVerdict::kCulprit;
  };
  Status error = Status::Ok();
  auto try_leg = [&](const std::vector<std::string>& factors) {
    Result<Leg> made = MakeLeg(LegKind::kMinimize, red, baseline, factors);
    if (!made.ok()) {
      error = made.status();
      return false;
    }
    Leg leg = std::move(*made);
    RunLegs({&leg}, o.repeats, red.seed, exec);
    leg.verdict = JudgeLeg(leg, out->legs[0]);
    const bool ok = still_red(leg);
    out->legs.push_back(std::move(leg));
    if (ok) {
      best = out->legs.size() - 1;
      reverted = factors;
    }
    return ok;
  };
  if (!drop.empty() && !try_leg(drop) && drop.size() > 1) {
    for (const std::string& f : drop) {
      std::vector<std::string> trial = reverted;
      trial.push_back(f);
      if (!try_leg(trial) && !error.ok()) return error;
    }
  }
  if (!error.ok()) return error;
  out->minimal = FirstRedRepeat(out->legs[best], red.seed);
  for (const Factor& f : DifferingFactors(*out->minimal, baseline)) {
    out->minimal_differs.push_back(f.name);
  }
  return Status::Ok();
}

}  // namespace

Result<BisectResult> Bisect(const RunConfig& red, const RunConfig& baseline,
                            const BisectOptions& o, const BatchExecutor& exec) {
  if (o.repeats == 0) return Status::InvalidArgument("--repeats: must be at least 1");
  BisectResult out;
  out.differing = DifferingFactors(red, baseline);
  CTTE_ASSIGN_OR_RETURN(Leg original, MakeLeg(LegKind::kOriginal, red, baseline, {}));
  original.verdict = LegVerdict::kReference;
  RunLegs({&original}, o.repeats, red.seed, exec);
  out.legs.push_back(std::move(original));
  if (TooUnsound(out.legs, o.max_unsound_fraction)) {
    out.verdict = BisectVerdict::kInfrastructure;
    out.summary = "infrastructure: " + std::to_string(out.legs[0].unsound()) + " of " +
                  std::to_string(out.legs[0].runs.size()) +
                  " runs of the original were infra or invalid; nothing is blamed";
    return out;
  }
  if (out.legs[0].red() == 0) {
    out.verdict = BisectVerdict::kNotReproduced;
    out.summary = "not reproduced: the original went red in 0 of " +
                  std::to_string(out.legs[0].judged()) + " runs with fresh model seeds";
    return out;
  }
  out.flaky = out.legs[0].red() < out.legs[0].judged();

  std::vector<Leg> singles;
  for (const Factor& f : out.differing) {
    CTTE_ASSIGN_OR_RETURN(Leg leg, MakeLeg(LegKind::kSingle, red, baseline, {f.name}));
    singles.push_back(std::move(leg));
  }
  {
    std::vector<Leg*> ptrs;
    for (Leg& l : singles) ptrs.push_back(&l);
    RunLegs(ptrs, o.repeats, red.seed, exec);
  }
  for (Leg& l : singles) {
    l.verdict = JudgeLeg(l, out.legs[0]);
    if (l.verdict == LegVerdict::kCulprit) out.culprits.push_back(l.factors[0]);
    out.legs.push_back(std::move(l));
  }
  if (TooUnsound(out.legs, o.max_unsound_fraction)) {
    out.verdict = BisectVerdict::kInfrastructure;
    out.summary = "infrastructure: more than a third of the runs were infra or invalid";
    out.culprits.clear();
    return out;
  }
  if (out.culprits.empty() && out.differing.size() >= 2) {
    std::vector<Leg> pairs;
    for (size_t i = 0; i < out.differing.size() && pairs.size() < o.max_pairs; ++i) {
      for (size_t j = i + 1; j < out.differing.size() && pairs.size() < o.max_pairs; ++j) {
        CTTE_ASSIGN_OR_RETURN(Leg leg, MakeLeg(LegKind::kPair, red, baseline,
                                               {out.differing[i].name, out.differing[j].name}));
        pairs.push_back(std::move(leg));
      }
    }
    std::vector<Leg*> ptrs;
    for (Leg& l : pairs) ptrs.push_back(&l);
    RunLegs(ptrs, o.repeats, red.seed, exec);
    for (Leg& l : pairs) {
      l.verdict = JudgeLeg(l, out.legs[0]);
      if (l.verdict == LegVerdict::kCulprit && out.culprits.empty()) out.culprits = l.factors;
      out.legs.push_back(std::move(l));
    }
    if (TooUnsound(out.legs, o.max_unsound_fraction)) {
      out.verdict = BisectVerdict::kInfrastructure;
      out.summary = "infrastructure: more than a third of the runs were infra or invalid";
      out.culprits.clear();
      return out;
    }
    out.verdict = out.culprits.empty() ? BisectVerdict::kNoCulprit : BisectVerdict::kInteraction;
  } else {
    out.verdict = out.culprits.empty() ? BisectVerdict::kNoCulprit : BisectVerdict::kCulprit;
  }

  CTTE_RETURN_IF_ERROR(Minimize(&out, red, baseline, o, exec));

  std::string s;
  if (out.verdict == BisectVerdict::kCulprit) {
    s = "culprit: ";
    for (size_t i = 0; i < out.culprits.size(); ++i) s += (i ? ", " : "") + out.culprits[i];
    s += " (reverting it turns the run green)";
  } else if (out.verdict == BisectVerdict::kInteraction) {
    s = "interaction: " + out.culprits[0] + " x " + out.culprits[1] +
        " (no single reversion turns it green; reverting both does)";
  } else {
    s = "no culprit: no reversion of one or two factors turns the run green with confidence";
  }
  if (out.flaky) s += "; flaky: original " + RateText(out.legs[0]);
  else s += "; original " + RateText(out.legs[0]);
  out.summary = s;
  return out;
}

}  // namespace ctte::runner
