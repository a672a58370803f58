// Triage storage and cross-campaign history (docs/triage.md, docs/db-schema.md "Triage"):
// bisections of red runs with their legs and each leg's runs, pair fail rates, and the nights
// of one campaign name.
//
// Contract:
//  - The tables (bisections, bisection_legs, bisection_runs) come from the migration
//    "triage" of db/schema.cc. A file without them (an older schema read read-only) reads as
//    having no bisections; writing to it is FailedPrecondition-like InvalidArgument.
//  - RecordBisection writes the bisection, its legs and their runs in one transaction.
//  - Leg runs are not rows of `runs`: they never count in a campaign's totals, history or
//    reports' run lists.
//  - PairRates: over the judged draws (database.h: original green/red runs, controls out) of
//    campaigns named `campaign_name` (or all; only campaign row `campaign_id` when it is not 0),
//    for every pair of factors (image and the eight
//    axes) and every pair of values that occurred together in at least `min_runs` judged runs:
//    the pair's fail rate and both single values' fail rates. excess = pair rate - max(single
//    rates): how much the pair fails beyond what either value alone explains; lo/hi: the
//    Wilson 95 % interval of the pair's rate; excess_lo = lo - max(single rates). Sorted by
//    excess_lo (descending: a pair seen in few runs has a low lower bound), then runs
//    (descending), then factor and value names. The factors are the image and every key under
//    $.axes of the stored configs.
//  - Nights: the campaign rows named `name` (one per seed: a soak --seed makes a new row), by
//    id, each with its run counts and pass/fail counts per verdict over its judged draws.
// Threading: as Database (one thread at a time).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "db/database.h"

namespace ctte::db {

struct BisectionRunRecord {
  uint32_t repeat = 0;
  uint64_t seed = 0;
  std::string status;          ///< green, red, invalid, infra
  std::string red_verdicts;    ///< comma-separated verdict codes ("" = none)
  std::string reason;
  std::string board_serial;
  int64_t wall_ms = 0;
};

struct BisectionLegRecord {
  uint32_t ordinal = 0;
  std::string kind;            ///< original, single, pair, minimize, same_board, other_board
  std::string factors;         ///< reverted factors joined by "+"; "" for the original
  std::string config_json;     ///< the leg's configuration (before the repeats' seeds)
  std::string verdict;         ///< reference, culprit, innocent, inconclusive
  uint64_t red = 0, judged = 0, unsound = 0;
  double lo = 0, hi = 1;       ///< 95 % interval of red / judged (bisect: Clopper-Pearson)
  std::vector<BisectionRunRecord> runs;
};

struct BisectionRecord {
  int64_t id = 0;              ///< set when read
  int64_t run_id = 0;          ///< the red run (runs.id)
  std::string kind;            ///< "bisect" or "triage"
  std::string created_at;
  uint32_t repeats = 0;
  std::string verdict;         ///< bisect: culprit, interaction, ...; triage: design, ...
  std::string culprits;        ///< comma-separated factors ("" = none known)
  std::string summary;
  std::string baseline_json;   ///< bisect: the baseline configuration ("" for triage)
  std::string minimal_config_json;  ///< "" when none
  std::string minimal_command;      ///< the `ctte-lab run --config` command ("" when none)
  std::vector<BisectionLegRecord> legs;
};

struct PairRate {
  std::string factor_a, value_a, factor_b, value_b;
  uint64_t runs = 0, red = 0;              ///< judged runs with both values
  double rate = 0, rate_a = 0, rate_b = 0; ///< pair and single fail rates
  double excess = 0;                       ///< rate - max(rate_a, rate_b)
  double lo = 0, hi = 1;                   ///< Wilson 95 % interval of the pair's rate
  double excess_lo = 0;                    ///< lo - max(rate_a, rate_b): the ranking key
};

struct NightRow {
  CampaignSummary campaign;
  /// verdict code -> {pass, fail} over the campaign's judged draws.
  std::map<std::string, std::pair<uint64_t, uint64_t>> verdicts;
  uint64_t judged() const { return campaign.green + campaign.red; }
};

class TriageStore {
 public:
  static Result<int64_t> RecordBisection(Database& db, const BisectionRecord& b);
  /// Bisections of one run, oldest first, with legs and runs.
  static Result<std::vector<BisectionRecord>> BisectionsOfRun(const Database& db, int64_t run_id);
  /// Bisections of the runs of one campaign row, by run then id.
  static Result<std::vector<BisectionRecord>> BisectionsOfCampaign(const Database& db,
                                                                   int64_t campaign_id);
  static Result<std::vector<PairRate>> PairRates(const Database& db,
                                                 const std::string& campaign_name,
                                                 uint64_t min_runs, int64_t campaign_id = 0);
  static Result<std::vector<NightRow>> Nights(const Database& db, const std::string& name);
  /// The stored spec_json and seed of one campaign row.
  static Result<std::pair<std::string, uint64_t>> CampaignSpec(const Database& db,
                                                               int64_t campaign_id);

 private:
  static bool HasTables(const Database& db);
  static Result<std::vector<BisectionRecord>> Select(const Database& db, const char* where,
                                                     int64_t arg);
};

}  // namespace ctte::db
