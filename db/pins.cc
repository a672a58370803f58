// Content pins (docs/db-schema.md, "Content pins"): the run_pins table, written in RecordRun's
// transaction (internal::WritePins) and read by PinsOfRun; and the digests runs refer to
// (ReferencedDigests, for the artifact store's gc).
#include "db/pins.h"

#include "db/database.h"
#include "db/schema.h"
#include "db/statement.h"

namespace ctte::db {

const char* ContentPinsMigration() {
  static const char* const sql = R"sql(
-- What a run ran, by content: the exact ELF (name, file, SHA-256), the program generator's
-- version for generated programs, and the tool version that planned and judged the run.
CREATE TABLE run_pins (
  run_id            INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  workload          TEXT NOT NULL DEFAULT '',
  workload_path     TEXT NOT NULL DEFAULT '',
  workload_sha256   TEXT CHECK (workload_sha256 IS NULL OR
                                (length(workload_sha256) = 64 AND
                                 workload_sha256 NOT GLOB '*[^0-9a-f]*')),
  generator_version TEXT,
  tool_version      TEXT NOT NULL DEFAULT ''
);
CREATE INDEX run_pins_workload_sha256 ON run_pins(workload_sha256);
)sql";
  return sql;
}

namespace internal {

Status WritePins(sqlite3* db, int64_t run_id, const RunPins& pins) {
  if (pins.empty()) return Status::Ok();
  Statement ins(db,
                "INSERT OR REPLACE INTO run_pins (run_id, workload, workload_path, "
                "workload_sha256, generator_version, tool_version) "
                "VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
  ins.Bind(1, run_id);
  ins.Bind(2, pins.workload);
  ins.Bind(3, pins.workload_path);
  ins.BindOpt(4, pins.workload_sha256);
  ins.BindOpt(5, pins.generator_version);
  ins.Bind(6, pins.tool_version);
  return ins.Run();
}

}  // namespace internal

Result<std::optional<RunPins>> Database::PinsOfRun(int64_t run_id) const {
  if (!Has(ContentPinsSchemaVersion())) return std::optional<RunPins>();
  internal::Statement s(db_,
                        "SELECT workload, workload_path, workload_sha256, generator_version, "
                        "tool_version FROM run_pins WHERE run_id = ?1");
  s.Bind(1, run_id);
  auto row = s.Step();
  if (!row.ok()) return row.status();
  if (!*row) return std::optional<RunPins>();
  return std::optional<RunPins>(RunPins{s.Text(0), s.Text(1), s.Text(2), s.Text(3), s.Text(4)});
}

Result<std::vector<std::string>> Database::ReferencedDigests() const {
  std::string sql = "SELECT image_sha256 FROM runs WHERE image_sha256 IS NOT NULL";
  if (Has(ContentPinsSchemaVersion())) {
    sql += " UNION SELECT workload_sha256 FROM run_pins WHERE workload_sha256 IS NOT NULL";
  }
  sql += " ORDER BY 1";
  internal::Statement s(db_, sql.c_str());
  std::vector<std::string> out;
  CTTE_RETURN_IF_ERROR(s.ForEachRow([&]() -> Status {
    out.push_back(s.Text(0));
    return Status::Ok();
  }));
  return out;
}

}  // namespace ctte::db
