// Internal to db/: copying rows between two lab databases by the schema itself (PRAGMA
// table_info and foreign_key_list), so that merge carries every column and every table of a run
// that a migration adds without a list of its own to keep in step (docs/db-schema.md#merge).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "db/statement.h"

namespace ctte::db::internal {

/// A table's columns and foreign keys, as the file's schema gives them.
struct TableShape {
  std::string name;
  std::vector<std::string> columns;  ///< every column, in table order
  /// The INTEGER PRIMARY KEY column (the rowid) when it is not a foreign key: a copy gets a new
  /// one. Empty when the key is a foreign key (streams.run_id) or absent.
  std::string rowid_alias;
  std::map<std::string, std::string> references;  ///< foreign-key column -> referenced table
  /// The columns a copied row carries: every column but rowid_alias.
  std::vector<std::string> Copied() const;
  bool operator==(const TableShape&) const = default;
};

/// The schema as merge sees it. The keyed tables (campaigns, images, boards) and runs, then the
/// tables of a run: every other table with a foreign key to runs (verdicts, streams,
/// run_attempts, ...), by name, each with its column that points at the run.
struct MergeSchema {
  TableShape campaigns, images, boards, runs;
  struct RunTable {
    TableShape shape;
    std::string run_column;
  };
  std::vector<RunTable> run_tables;
  /// Tables below a run table: one foreign key to a run table or to another of these (e.g.
  /// bisection_legs -> bisections -> runs). They travel with their parent row, which therefore
  /// needs a rowid alias. In an order where every parent comes before its children.
  struct ChildTable {
    TableShape shape;
    std::string parent_column;
    std::string parent_table;
  };
  std::vector<ChildTable> child_tables;
};

/// Reads the schema of `db` (file `path`, for messages). A table merge cannot place (neither
/// keyed, nor runs, nor one foreign key to runs) is an InvalidArgument naming it: merge refuses
/// rather than silently leaving rows behind.
Result<MergeSchema> ReadMergeSchema(sqlite3* db, const std::string& path);

/// Output ids of input rows, by table name ("boards", "campaigns", "runs").
using IdMaps = std::map<std::string, std::map<int64_t, int64_t>>;

struct CopySpec {
  std::string where;   ///< selects the input rows, with ?1 = key, e.g. "id = ?1"
  int64_t key = 0;
  /// Columns written with these values instead of the input's (nullopt = NULL).
  std::map<std::string, std::optional<int64_t>> set;
  std::string insert_suffix;          ///< e.g. " ON CONFLICT (sha256) DO NOTHING"
  std::optional<int64_t> update_id;   ///< update this output row instead of inserting
};

struct CopyResult {
  uint64_t changed = 0;    ///< rows inserted or updated
  int64_t last_id = 0;     ///< rowid of the last row inserted
};

/// Copies the rows of `shape` that spec.where selects from `in` to `out`: each column of
/// Copied() with its stored type, except the spec.set columns; other foreign-key columns are
/// re-pointed through `maps` (an id missing from its map is Corruption naming table, column and
/// id; a foreign key to a table with no map is Internal).
Result<CopyResult> CopyRows(sqlite3* in, sqlite3* out, const TableShape& shape,
                            const CopySpec& spec, const IdMaps& maps);

/// Copies the rows of `shape` (a run table or a child table) whose `column` is the input id
/// `src_parent`, writing `out_parent` there; each row's children (schema.child_tables) follow
/// it with its new id, recursively.
Status CopyTableOfRun(sqlite3* in, sqlite3* out, const MergeSchema& schema,
                      const TableShape& shape, const std::string& column, int64_t src_parent,
                      int64_t out_parent, const IdMaps& maps);

/// Copies the bisections of input run `src_run` (with their legs and leg runs) to output run
/// `out_run`, each unless the output holds one of the same kind and creation time for it.
/// Returns how many it copied (0 when the schema has no bisections).
Result<uint64_t> CarryBisectionsOfRun(sqlite3* in, sqlite3* out, const MergeSchema& schema,
                                      int64_t src_run, int64_t out_run, const IdMaps& maps);

/// The same tables with the same columns, keys and links.
bool SameShape(const MergeSchema& a, const MergeSchema& b);

}  // namespace ctte::db::internal
