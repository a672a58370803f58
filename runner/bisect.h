// Bisection of a red run (docs/triage.md): which factor of its configuration matters, with
// statistics, so a flaky failure does not mislead it.
//
// Contract (the statistics are written out in docs/triage.md, "Statistics"):
//  - The factors are the image and the axes (runner/axis_values.h's table). A factor *differs*
//    when the red configuration's value is not the baseline's. A leg reverts some factors to
//    the baseline (RevertFactor: the axis text and every parameter that axis drew, from the
//    table) and keeps the rest; a factor that cannot be reverted is an error, never skipped.
//  - The outcome of a repeat is whether it *reproduces*: red with at least one verdict of
//    `target_verdicts` failing (the failing verdicts of the run being bisected; any red when
//    that set is empty). A repeat red only on other verdicts is counted apart (other_red) and
//    does not reproduce.
//  - Paired design: repeat r of every leg, the original included, uses the same fresh model
//    seeds (RepeatConfig), so leg and original are compared repeat by repeat. Over the repeats
//    both judged, b = original reproduced and leg did not, c = the reverse.
//  - A leg is a *culprit* when the exact one-sided sign test (McNemar's exact test) on b and c
//    rejects "reverting changes nothing" after Holm's correction over the legs of its stage
//    (singles, or pairs) at the stage's share of the family-wise level `alpha`: alpha is split
//    evenly over the looks (the repeat counts repeats, 2 repeats, ... up to max_repeats) and,
//    when pairs may follow, half to singles and half to pairs. So the chance of blaming any
//    innocent factor in one bisection is at most alpha.
//    *Innocent* when not a culprit and the upper end of the effect's 1 - alpha interval is
//    below `innocence_margin`; *inconclusive* otherwise. Undecided legs (and the original)
//    get more repeats (doubling) until every leg is decided or max_repeats is reached.
//  - Per leg: the counts, p and Holm-adjusted p, the effect (P10 - P01) with its interval and
//    the smallest effect it could have detected with probability `power` (bisect_stats.h).
//  - Verdicts: one single culprit: kCulprit ("needs A"); two or more: kNeedsAll (an AND: the
//    run needs all of them, reverting any one turns it green). No single culprit and two or
//    more factors differ: every pair is a leg (at most max_pairs); culprit pairs make
//    kEitherOf (an OR: either factor alone keeps it red; all culprit pairs are kept).
//  - Infrastructure: when infra or invalid runs are more than a third of the runs so far, the
//    bisection stops with kInfrastructure; nothing is blamed.
//  - Not reproduced: the original never reproduced (kNotReproduced).
//  - Minimization (greedy toward the baseline): every non-culprit factor reverted at once, then
//    one at a time, keeping each reversion whose leg still reproduces and is not a culprit
//    against the original at level alpha. The minimal configuration is the last such leg's;
//    it is *confirmed* when that leg reproduced in at least one repeat and its sign test
//    against the original does not reject at alpha (it is not measurably greener).
//  - The original is flaky when it reproduced in fewer than all its judged repeats.
// Threading: Bisect calls the executor from the calling thread; the executor may run a batch
// in parallel.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "runner/bisect_stats.h"
#include "runner/campaign_spec.h"
#include "runner/run_config.h"
#include "runner/run_status.h"

namespace ctte::runner {

/// Wilson score interval (95 %: z = 1.96) for k successes in n trials; [0, 1] when n == 0.
struct Interval {
  double lo = 0, hi = 1;
};
Interval WilsonInterval(uint64_t k, uint64_t n, double z = 1.96);

/// What one repeat of a leg showed.
struct LegRun {
  uint32_t repeat = 0;
  uint64_t seed = 0;              ///< the repeat's run seed (model seed derived from it)
  RunStatus status = RunStatus::kInfra;
  std::vector<std::string> red_verdicts;  ///< verdict codes that failed
  bool reproduces = false;        ///< red on a target verdict (set by Bisect)
  std::string reason;             ///< status reason ("" when green)
  std::string board_serial;
  int64_t wall_ms = 0;
};

enum class LegKind { kOriginal, kSingle, kPair, kMinimize, kSameBoard, kOtherBoard };
const char* LegKindName(LegKind kind);  ///< "original", "single", "pair", "minimize", ...

enum class LegVerdict { kReference, kCulprit, kInnocent, kInconclusive, kNotRun };
const char* LegVerdictName(LegVerdict verdict);  ///< "reference", "culprit", ...

/// One leg's paired test against the original.
struct LegTest {
  uint64_t paired = 0;     ///< repeats judged in both
  uint64_t b = 0, c = 0;   ///< original only reproduced / leg only reproduced
  double p = 1;            ///< one-sided sign test
  double p_holm = 1;       ///< Holm-adjusted within its stage
  double level = 0;        ///< the stage's level per look the adjusted p is held to
  stats::Effect effect;    ///< P10 - P01 with its 1 - alpha interval
  double detectable = 2;   ///< smallest effect detectable (power) at `level`; > 1: none
};

struct Leg {
  LegKind kind = LegKind::kSingle;
  std::vector<std::string> factors;  ///< reverted factors ("" for the original)
  RunConfig config;
  std::vector<LegRun> runs;
  LegVerdict verdict = LegVerdict::kNotRun;
  LegTest test;                       ///< against the original (not for the original)
  uint64_t red() const;               ///< repeats that reproduced
  uint64_t other_red() const;         ///< repeats red only on other verdicts
  uint64_t judged() const;            ///< green + red
  uint64_t unsound() const;           ///< infra + invalid
  double rate() const { return judged() ? static_cast<double>(red()) / judged() : 0.0; }
  /// Clopper-Pearson 95 % interval of the reproduction rate.
  Interval interval() const;
  /// "mode+sync" or "(original)".
  std::string Label() const;
};

/// A repeat reproduces the bisected run when it is red on one of `targets` (the run's failing
/// verdicts; any red when `targets` is empty). Bisection and triage legs count only these.
bool Reproduces(const LegRun& r, const std::vector<std::string>& targets);

/// The paired counts of `leg` against `original` (repeats matched by index), with p and effect;
/// p_holm, level and detectable are left for the caller.
LegTest PairedTest(const Leg& leg, const Leg& original, double alpha);

enum class BisectVerdict {
  kCulprit, kNeedsAll, kEitherOf, kNoCulprit, kNotReproduced, kInfrastructure
};
const char* BisectVerdictName(BisectVerdict verdict);

struct Factor {
  std::string name;       ///< "image" or an axis name
  std::string red_value;  ///< in the red configuration
  std::string base_value; ///< in the baseline
};

struct BisectResult {
  BisectVerdict verdict = BisectVerdict::kNoCulprit;
  std::vector<Factor> differing;
  std::vector<Leg> legs;               ///< legs[0] is the original
  std::vector<std::string> culprits;   ///< single culprits, or every factor of a culprit pair
  std::vector<std::vector<std::string>> culprit_pairs;  ///< kEitherOf: every culprit pair
  bool flaky = false;                  ///< the original reproduced in fewer than all its runs
  uint32_t repeats = 0;                ///< the original's repeats at the end
  double alpha = 0.05;                 ///< the family-wise level
  std::optional<RunConfig> minimal;    ///< the minimal red configuration (when reproduced)
  bool minimal_confirmed = false;      ///< see the contract
  std::vector<std::string> minimal_differs;  ///< factors in which it differs from the baseline
  std::string summary;                 ///< one line: what the bisection found
};

struct BisectOptions {
  uint32_t repeats = 10;        ///< repeats of every leg at the first look
  uint32_t max_repeats = 40;    ///< doubling up to this many while legs are undecided
  uint32_t max_pairs = 28;
  double alpha = 0.05;          ///< family-wise level of the culprit calls of one bisection
  double power = 0.8;           ///< for the detectable effect
  double innocence_margin = 0.5;  ///< innocent: the effect's upper bound is below this
  double max_unsound_fraction = 1.0 / 3.0;
  std::vector<std::string> target_verdicts;  ///< failing verdicts of the bisected run
};

/// Runs a batch of configurations (each one repeat of a leg) and reports one LegRun each, in
/// the order given. Runs may go in parallel on several boards.
using BatchExecutor = std::function<std::vector<LegRun>(const std::vector<RunConfig>&)>;

/// The factors in which `red` differs from `baseline`: image first, then the axes in
/// AxisNames() order.
std::vector<Factor> DifferingFactors(const RunConfig& red, const RunConfig& baseline);
/// Sets `factor` of *config to the baseline's value with the parameters the baseline drew for
/// it. InvalidArgument for an unknown factor.
Status RevertFactor(RunConfig* config, const RunConfig& baseline, const std::string& factor);
/// Repeat r of a leg: fresh run, stall and sink seeds derived from `base_seed` and r.
RunConfig RepeatConfig(const RunConfig& leg_config, uint64_t base_seed, uint32_t repeat);
/// The spec's baseline for `red`: every axis at its first value (the image kept), with the
/// parameters Draw would give those values for red's run seed.
RunConfig SpecBaseline(const CampaignSpec& spec, const RunConfig& red);

/// The bisection of the contract.
Result<BisectResult> Bisect(const RunConfig& red, const RunConfig& baseline,
                            const BisectOptions& options, const BatchExecutor& exec);

}  // namespace ctte::runner
