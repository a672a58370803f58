// The schema as a list of migrations (docs/db-schema.md). Migration k (1-based) takes a file
// from PRAGMA user_version k-1 to k. Append only: never edit a migration that has shipped.
#pragma once

#include <vector>

namespace ctte::db {

const std::vector<const char*>& Migrations();

/// The content-pins migration (db/pins.cc): the run_pins table.
const char* ContentPinsMigration();
/// The schema version at which run_pins exists (its 1-based place in Migrations()).
int ContentPinsSchemaVersion();

}  // namespace ctte::db
