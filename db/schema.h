// The schema as a list of migrations (docs/db-schema.md). Migration k (1-based) takes a file
// from PRAGMA user_version k-1 to k. Append only: never edit a migration that has shipped.
#pragma once

#include <string_view>
#include <vector>

namespace ctte::db {

const std::vector<const char*>& Migrations();

/// The content-pins migration (db/pins.cc): the run_pins table.
const char* ContentPinsMigration();
/// The schema version at which run_pins exists (its 1-based place in Migrations()).
int ContentPinsSchemaVersion();
/// The schema version of migration "history at scale": runs.is_control, the runs_history index,
/// the axis_counts and verdict_counts tables (docs/db-schema.md#history-counts).
int HistoryCountsSchemaVersion();
/// Tables whose rows are derived from other tables by triggers (axis_counts, verdict_counts):
/// merge never copies them (the triggers fill the output from the rows merge copies).
bool IsDerivedTable(std::string_view table);

}  // namespace ctte::db
