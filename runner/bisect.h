// Bisection of a red run (docs/triage.md): which factor of its configuration matters, with
// statistics, so a flaky failure does not mislead it.
//
// Contract:
//  - The factors are the image and the eight axes (docs/campaign-spec.md, "Axes"). A factor
//    *differs* when the red configuration's value is not the baseline's. A leg reverts some
//    factors to the baseline (RevertFactor: the axis text and every concrete parameter that
//    axis drew, copied from the baseline) and keeps the rest.
//  - Every leg, and the original configuration (leg "original"), runs `repeats` times. Repeat r
//    of every leg uses the same fresh model seeds (RepeatConfig: run seed, stall and sink
//    seeds derived from the red run's seed and r), so legs are compared on the same power-ups
//    and core/sink patterns; the program seed stays (the workload is a factor).
//  - Per leg: red count k over judged runs n (green + red), the Wilson 95 % interval, and a
//    verdict against the original leg (thresholds in docs/triage.md):
//      culprit       hi(leg) < lo(original): reverting it turns the run green with confidence;
//      innocent      the leg still goes red (k > 0) and each rate lies inside the other's
//                    interval: reverting it changes nothing measurable;
//      inconclusive  anything else.
//  - Infrastructure: when infra or invalid runs are more than a third of the runs so far
//    (checked after the original leg and after every round of legs), the bisection stops with
//    verdict kInfrastructure; nothing is blamed.
//  - Not reproduced: the original leg never went red: nothing to bisect (kNotReproduced).
//  - No single leg is a culprit and two or more factors differ: every pair of factors is a leg
//    (at most max_pairs); a culprit pair is reported as an interaction.
//  - Minimization (greedy toward the baseline): first every non-culprit factor is reverted at
//    once; when that leg is still red (not a culprit by the rule above) it is the minimal
//    configuration; otherwise the factors are reverted one at a time, keeping each reversion
//    whose leg stays red. The minimal configuration is the last red leg's configuration.
//  - The original is flaky when its red count is below n (rate and interval in the result).
// Threading: Bisect calls the executor from the calling thread; the executor may run a batch
// in parallel.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
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
  std::string reason;             ///< status reason ("" when green)
  std::string board_serial;
  int64_t wall_ms = 0;
};

enum class LegKind { kOriginal, kSingle, kPair, kMinimize, kSameBoard, kOtherBoard };
const char* LegKindName(LegKind kind);  ///< "original", "single", "pair", "minimize", ...

enum class LegVerdict { kReference, kCulprit, kInnocent, kInconclusive, kNotRun };
const char* LegVerdictName(LegVerdict verdict);  ///< "reference", "culprit", ...

struct Leg {
  LegKind kind = LegKind::kSingle;
  std::vector<std::string> factors;  ///< reverted factors ("" for the original)
  RunConfig config;
  std::vector<LegRun> runs;
  LegVerdict verdict = LegVerdict::kNotRun;
  uint64_t red() const;
  uint64_t judged() const;            ///< green + red
  uint64_t unsound() const;           ///< infra + invalid
  double rate() const { return judged() ? static_cast<double>(red()) / judged() : 0.0; }
  Interval interval() const { return WilsonInterval(red(), judged()); }
  /// "mode+sync" or "(original)".
  std::string Label() const;
};

/// The verdict of a leg against the original leg (the rule of the contract).
LegVerdict JudgeLeg(const Leg& leg, const Leg& original);

enum class BisectVerdict { kCulprit, kInteraction, kNoCulprit, kNotReproduced, kInfrastructure };
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
  std::vector<std::string> culprits;   ///< single culprit factors, or the interaction pair
  bool flaky = false;                  ///< the original went red in fewer than all its runs
  std::optional<RunConfig> minimal;    ///< the minimal red configuration (when reproduced)
  std::vector<std::string> minimal_differs;  ///< factors in which it differs from the baseline
  std::string summary;                 ///< one line: what the bisection found
};

struct BisectOptions {
  uint32_t repeats = 5;
  uint32_t max_pairs = 28;
  double max_unsound_fraction = 1.0 / 3.0;
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
