// Bisect (see bisect.h): the looks, the paired tests with Holm's correction, the pairs and the
// greedy minimization.
#include <algorithm>
#include <cstdio>

#include "runner/bisect.h"

namespace ctte::runner {

bool Reproduces(const LegRun& r, const std::vector<std::string>& targets) {
  if (r.status != RunStatus::kRed) return false;
  if (targets.empty()) return true;
  return std::any_of(r.red_verdicts.begin(), r.red_verdicts.end(), [&](const std::string& v) {
    return std::find(targets.begin(), targets.end(), v) != targets.end();
  });
}

namespace {

struct Ctx {
  const RunConfig& red;
  const RunConfig& baseline;
  const BisectOptions& o;
  const BatchExecutor& exec;
  std::vector<uint32_t> looks;  // repeats at each look
};

std::vector<uint32_t> Looks(const BisectOptions& o) {
  std::vector<uint32_t> looks;
  const uint32_t max = std::max(o.repeats, o.max_repeats);
  for (uint32_t n = o.repeats;; n = std::min(2 * n, max)) {
    looks.push_back(n);
    if (n >= max) break;
  }
  return looks;
}

// Brings every leg to `n` repeats (runs repeats [have, n)) in one batch, so a pool of boards
// runs them in parallel. A run the executor did not return is infra.
void Extend(const std::vector<Leg*>& legs, uint32_t n, const Ctx& c) {
  std::vector<RunConfig> batch;
  std::vector<std::pair<Leg*, uint32_t>> owner;
  for (Leg* leg : legs) {
    for (uint32_t r = static_cast<uint32_t>(leg->runs.size()); r < n; ++r) {
      batch.push_back(RepeatConfig(leg->config, c.red.seed, r));
      owner.push_back({leg, r});
    }
  }
  if (batch.empty()) return;
  std::vector<LegRun> runs = c.exec(batch);
  for (size_t i = 0; i < batch.size(); ++i) {
    LegRun run;
    if (i < runs.size()) run = std::move(runs[i]);
    else run.reason = "the executor returned no run";
    run.repeat = owner[i].second;
    run.seed = batch[i].seed;
    run.reproduces = Reproduces(run, c.o.target_verdicts);
    owner[i].first->runs.push_back(std::move(run));
  }
}

bool TooUnsound(const std::vector<const Leg*>& legs, double max_fraction) {
  uint64_t all = 0, bad = 0;
  for (const Leg* l : legs) {
    all += l->runs.size();
    bad += l->unsound();
  }
  return all > 0 && static_cast<double>(bad) > max_fraction * static_cast<double>(all);
}

// One stage (the singles, or the pairs): at each look, the undecided legs and the original get
// the look's repeats, every leg's paired test is Holm-adjusted over the stage and held to
// `level` (the stage's share of alpha at one look). False when infra dominated.
bool RunStage(std::vector<Leg>* legs, Leg* original, double level, std::vector<const Leg*> all,
              const Ctx& c) {
  for (const Leg& l : *legs) all.push_back(&l);
  const size_t m = legs->size();
  for (uint32_t n : c.looks) {
    std::vector<Leg*> run = {original};
    for (Leg& l : *legs) {
      if (l.verdict == LegVerdict::kNotRun || l.verdict == LegVerdict::kInconclusive) {
        run.push_back(&l);
      }
    }
    if (run.size() == 1) break;
    Extend(run, n, c);
    if (TooUnsound(all, c.o.max_unsound_fraction)) return false;
    std::vector<double> p;
    for (Leg& l : *legs) {
      if (l.verdict == LegVerdict::kNotRun || l.verdict == LegVerdict::kInconclusive) {
        l.test = PairedTest(l, *original, c.o.alpha);
      }
      p.push_back(l.test.p);
    }
    const std::vector<double> adjusted = stats::HolmAdjust(p);
    for (size_t i = 0; i < m; ++i) {
      Leg& l = (*legs)[i];
      if (l.verdict != LegVerdict::kNotRun && l.verdict != LegVerdict::kInconclusive) continue;
      l.test.p_holm = adjusted[i];
      l.test.level = level;
      l.test.detectable = stats::MinimalDetectableEffect(
          l.test.paired, level / static_cast<double>(m), c.o.power);
      if (adjusted[i] <= level) l.verdict = LegVerdict::kCulprit;
      else if (l.test.effect.interval.hi < c.o.innocence_margin) l.verdict = LegVerdict::kInnocent;
      else l.verdict = LegVerdict::kInconclusive;
    }
  }
  return true;
}

std::string Fmt(const char* format, double x) {
  char buf[48];
  std::snprintf(buf, sizeof buf, format, x);
  return buf;
}

std::string RateText(const Leg& l) {
  const Interval i = l.interval();
  return std::to_string(l.red()) + "/" + std::to_string(l.judged()) + " reproduced (95% " +
         Fmt("%.0f%%", 100 * i.lo) + "-" + Fmt("%.0f%%", 100 * i.hi) + ")";
}

std::string TestText(const Leg& l) {
  return "b=" + std::to_string(l.test.b) + " c=" + std::to_string(l.test.c) + " of " +
         std::to_string(l.test.paired) + ", p=" + Fmt("%.3g", l.test.p) + ", Holm " +
         Fmt("%.3g", l.test.p_holm) + " <= " + Fmt("%.3g", l.test.level);
}

Result<Leg> MakeLeg(LegKind kind, const Ctx& c, const std::vector<std::string>& factors) {
  Leg leg;
  leg.kind = kind;
  leg.factors = factors;
  leg.config = c.red;
  for (const std::string& f : factors) {
    CTTE_RETURN_IF_ERROR(RevertFactor(&leg.config, c.baseline, f));
  }
  return leg;
}

// The configuration of the first reproducing repeat of a leg.
RunConfig FirstRedRepeat(const Leg& leg, uint64_t base_seed) {
  for (const LegRun& r : leg.runs) {
    if (r.reproduces) return RepeatConfig(leg.config, base_seed, r.repeat);
  }
  return leg.config;
}

Status Minimize(BisectResult* out, const Ctx& c) {
  std::vector<std::string> drop;
  for (const Factor& f : out->differing) {
    if (std::find(out->culprits.begin(), out->culprits.end(), f.name) == out->culprits.end()) {
      drop.push_back(f.name);
    }
  }
  const uint32_t n = static_cast<uint32_t>(out->legs[0].runs.size());
  size_t best = 0;  // index of the last kept leg on the way to the baseline (0: the original)
  std::vector<std::string> reverted;
  auto try_leg = [&](const std::vector<std::string>& factors) -> Result<bool> {
    CTTE_ASSIGN_OR_RETURN(Leg leg, MakeLeg(LegKind::kMinimize, c, factors));
    Extend({&leg}, n, c);
    leg.test = PairedTest(leg, out->legs[0], c.o.alpha);
    leg.test.p_holm = leg.test.p;
    leg.test.level = c.o.alpha;
    leg.test.detectable = stats::MinimalDetectableEffect(leg.test.paired, c.o.alpha, c.o.power);
    const bool kept = leg.red() > 0 && leg.test.p > c.o.alpha;
    leg.verdict = kept ? LegVerdict::kInnocent : LegVerdict::kCulprit;
    out->legs.push_back(std::move(leg));
    if (kept) {
      best = out->legs.size() - 1;
      reverted = factors;
    }
    return kept;
  };
  if (!drop.empty()) {
    CTTE_ASSIGN_OR_RETURN(const bool all, try_leg(drop));
    if (!all && drop.size() > 1) {
      for (const std::string& f : drop) {
        std::vector<std::string> trial = reverted;
        trial.push_back(f);
        CTTE_RETURN_IF_ERROR(try_leg(trial).status());
      }
    }
  }
  const Leg& kept = out->legs[best];
  out->minimal = FirstRedRepeat(kept, c.red.seed);
  out->minimal_confirmed =
      best == 0 || kept.test.effect.interval.hi < c.o.innocence_margin;
  for (const Factor& f : DifferingFactors(*out->minimal, c.baseline)) {
    out->minimal_differs.push_back(f.name);
  }
  return Status::Ok();
}

std::string Summary(const BisectResult& r, const std::vector<Leg>& singles) {
  std::string s;
  auto leg_of = [&](const std::vector<std::string>& factors) -> const Leg* {
    for (const Leg& l : r.legs) {
      if ((l.kind == LegKind::kSingle || l.kind == LegKind::kPair) && l.factors == factors) return &l;
    }
    return nullptr;
  };
  if (r.verdict == BisectVerdict::kCulprit) {
    s = "culprit: " + r.culprits[0] + " (reverting it turns the run green; " +
        TestText(*leg_of({r.culprits[0]})) + ")";
  } else if (r.verdict == BisectVerdict::kNeedsAll) {
    s = "needs all of: ";
    for (size_t i = 0; i < r.culprits.size(); ++i) s += (i ? " and " : "") + r.culprits[i];
    s += " (AND: reverting any one of them turns the run green)";
  } else if (r.verdict == BisectVerdict::kEitherOf) {
    s = "either of:";
    for (const auto& p : r.culprit_pairs) s += " [" + p[0] + " or " + p[1] + "]";
    s += " (OR: no single reversion turns the run green; reverting both does; " +
         TestText(*leg_of(r.culprit_pairs[0])) + ")";
  } else {
    double weakest = 0;
    for (const Leg& l : singles) weakest = std::max(weakest, l.test.detectable);
    s = "no culprit at family-wise level " + Fmt("%g", r.alpha) + "; " +
        (weakest > 1 ? std::string("too few repeats to detect any single culprit")
                     : "a single culprit of effect " + Fmt("%.2f", weakest) +
                           " or more would have been found with 80% power");
  }
  s += (r.flaky ? "; flaky: original " : "; original ") + RateText(r.legs[0]);
  uint64_t other = 0;
  for (const Leg& l : r.legs) other += l.other_red();
  if (other > 0) {
    s += "; " + std::to_string(other) +
         " repeats red only on other verdicts (reported, not counted as reproducing)";
  }
  return s;
}

}  // namespace

Result<BisectResult> Bisect(const RunConfig& red, const RunConfig& baseline,
                            const BisectOptions& o, const BatchExecutor& exec) {
  if (o.repeats == 0) return Status::InvalidArgument("--repeats: must be at least 1");
  if (!(o.alpha > 0 && o.alpha < 1)) return Status::InvalidArgument("alpha: must be in (0, 1)");
  const Ctx c{red, baseline, o, exec, Looks(o)};
  BisectResult out;
  out.alpha = o.alpha;
  out.differing = DifferingFactors(red, baseline);
  CTTE_ASSIGN_OR_RETURN(Leg original, MakeLeg(LegKind::kOriginal, c, {}));
  original.verdict = LegVerdict::kReference;
  Extend({&original}, c.looks[0], c);
  const auto infrastructure = [&](BisectResult* r) {
    r->verdict = BisectVerdict::kInfrastructure;
    r->culprits.clear();
    r->culprit_pairs.clear();
    r->repeats = static_cast<uint32_t>(r->legs[0].runs.size());
    r->summary = "infrastructure: more than a third of the runs were infra or invalid; nothing "
                 "is blamed";
    return *r;
  };
  out.legs.push_back(std::move(original));
  if (TooUnsound({&out.legs[0]}, o.max_unsound_fraction)) return infrastructure(&out);
  if (out.legs[0].red() == 0) {
    out.verdict = BisectVerdict::kNotReproduced;
    out.repeats = c.looks[0];
    out.summary = "not reproduced: the original reproduced in 0 of " +
                  std::to_string(out.legs[0].judged()) + " runs with fresh model seeds";
    if (out.legs[0].other_red() > 0) {
      out.summary += " (" + std::to_string(out.legs[0].other_red()) +
                     " red only on other verdicts)";
    }
    return out;
  }
  // Alpha: evenly over the looks, then half to singles and half to pairs when pairs may run.
  const double per_look = o.alpha / static_cast<double>(c.looks.size());
  const bool pairs_possible = out.differing.size() >= 2 && o.max_pairs > 0;
  const double single_level = pairs_possible ? per_look / 2 : per_look;

  std::vector<Leg> singles;
  for (const Factor& f : out.differing) {
    CTTE_ASSIGN_OR_RETURN(Leg leg, MakeLeg(LegKind::kSingle, c, {f.name}));
    singles.push_back(std::move(leg));
  }
  Leg& orig = out.legs[0];
  if (!RunStage(&singles, &orig, single_level, {}, c)) {
    for (Leg& l : singles) out.legs.push_back(std::move(l));
    return infrastructure(&out);
  }
  for (const Leg& l : singles) {
    if (l.verdict == LegVerdict::kCulprit) out.culprits.push_back(l.factors[0]);
  }
  std::vector<Leg> pairs;
  if (out.culprits.empty() && pairs_possible) {
    for (size_t i = 0; i < out.differing.size() && pairs.size() < o.max_pairs; ++i) {
      for (size_t j = i + 1; j < out.differing.size() && pairs.size() < o.max_pairs; ++j) {
        CTTE_ASSIGN_OR_RETURN(
            Leg leg, MakeLeg(LegKind::kPair, c, {out.differing[i].name, out.differing[j].name}));
        pairs.push_back(std::move(leg));
      }
    }
    std::vector<const Leg*> before;
    for (const Leg& l : singles) before.push_back(&l);
    if (!RunStage(&pairs, &orig, per_look / 2, before, c)) {
      for (Leg& l : singles) out.legs.push_back(std::move(l));
      for (Leg& l : pairs) out.legs.push_back(std::move(l));
      return infrastructure(&out);
    }
    for (const Leg& l : pairs) {
      if (l.verdict != LegVerdict::kCulprit) continue;
      out.culprit_pairs.push_back(l.factors);
      for (const std::string& f : l.factors) {
        if (std::find(out.culprits.begin(), out.culprits.end(), f) == out.culprits.end()) {
          out.culprits.push_back(f);
        }
      }
    }
  }
  const std::vector<Leg> singles_copy = singles;
  for (Leg& l : singles) out.legs.push_back(std::move(l));
  for (Leg& l : pairs) out.legs.push_back(std::move(l));
  if (!out.culprit_pairs.empty()) out.verdict = BisectVerdict::kEitherOf;
  else if (out.culprits.size() == 1) out.verdict = BisectVerdict::kCulprit;
  else if (out.culprits.size() > 1) out.verdict = BisectVerdict::kNeedsAll;
  else out.verdict = BisectVerdict::kNoCulprit;
  out.repeats = static_cast<uint32_t>(out.legs[0].runs.size());
  out.flaky = out.legs[0].red() < out.legs[0].judged();
  CTTE_RETURN_IF_ERROR(Minimize(&out, c));
  out.summary = Summary(out, singles_copy);
  return out;
}

}  // namespace ctte::runner
