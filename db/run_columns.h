// Internal to db/: the one list of the columns of `runs` that a RunRecord fills (every column but
// the row id). Writes (database_write.cc) bind them in this order, reads (queries.cc) select them
// in this order; merge (merge_copy.cc) copies whatever PRAGMA table_info lists, so it needs no
// list. RunColumnsTest.ListMatchesTheSchema fails when a migration adds a column to `runs` that
// is not here.
#pragma once

#include <iterator>
#include <string>

#include "db/records.h"
#include "db/statement.h"

namespace ctte::db::internal {

struct RunColumn {
  const char* name;
  int since_schema;  ///< the migration that added the column
  /// Part of a planned run (what PlanRuns fills and a requeued run keeps: its identity, its
  /// config, its status). Every other column is an outcome of the run, which
  /// RequeueInfraRuns clears (RunOutcomeResetList), so a column added later is cleared unless
  /// it says otherwise.
  bool planned = false;
};

inline constexpr RunColumn kRunColumns[] = {
    {"campaign_id", 1, true},   {"idx", 1, true},
    {"seed", 1, true},          {"config_json", 1, true},
    {"status", 1, true},        {"image_name", 1},
    {"image_sha256", 1},        {"board_id", 1},
    {"fabric_hz_requested", 1}, {"fabric_hz_programmed", 1},
    {"fabric_hz_read_back", 1}, {"sink_hz_requested", 1},
    {"sink_hz_programmed", 1},  {"sink_hz_read_back", 1},
    {"started_at", 1},          {"wall_ms", 1},
    {"stream_sha256", 1},       {"stream_size", 1},
    {"counters_json", 1},       {"metrics_json", 1},
    {"replay_of", 1, true},     {"infra_cause", 2},
};
inline constexpr int kRunColumnCount = static_cast<int>(std::size(kRunColumns));

/// "campaign_id, idx, ..." of the columns a file at `schema` has, each with `prefix`.
/// With `null_for_missing`, a column the file lacks reads as NULL (so positions stay fixed).
std::string RunColumnList(int schema, const char* prefix, bool null_for_missing);
/// "image_name = NULL, ..." for every outcome column (not `planned`) a file at `schema` has:
/// what a run requeued as planned clears.
std::string RunOutcomeResetList(int schema);
/// "?1, ?2, ..." for the columns a file at `schema` has.
std::string RunParamList(int schema);
/// How many of the columns a file at `schema` has (the first parameter after them is this + 1).
int RunColumnsAt(int schema);
/// Binds `r` as parameters 1.. in kRunColumns order (only the columns a file at `schema` has).
void BindRun(Statement& s, const RunRecord& r, int schema);
/// Reads the columns from result column `first` on (all kRunColumnCount of them, as selected
/// with RunColumnList(..., null_for_missing = true)). Corruption names runs.id `id`.
Status ReadRunColumns(const Statement& s, int first, int64_t id, RunRecord* r);

}  // namespace ctte::db::internal
