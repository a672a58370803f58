// Internal to db/: writing a run's content pins inside RecordRun's transaction (db/pins.cc).
#pragma once

#include <cstdint>

#include "base/status.h"
#include "db/records.h"

struct sqlite3;

namespace ctte::db::internal {

/// INSERT OR REPLACE the run_pins row of `run_id`; nothing when pins.empty().
Status WritePins(sqlite3* db, int64_t run_id, const RunPins& pins);

}  // namespace ctte::db::internal
