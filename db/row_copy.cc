// Schema-driven row copies for merge (db/row_copy.h).
#include "db/row_copy.h"

#include <algorithm>
#include <tuple>

#include "db/schema.h"

namespace ctte::db::internal {
namespace {

// SQL text for an identifier taken from the schema: double-quoted, quotes doubled.
std::string Quoted(const std::string& name) {
  std::string q = "\"";
  for (const char c : name) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string JoinQuoted(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + Quoted(n);
  return out;
}

Result<TableShape> ReadShape(sqlite3* db, const std::string& table) {
  TableShape shape;
  shape.name = table;
  Statement fk(db, ("PRAGMA foreign_key_list(" + Quoted(table) + ")").c_str());
  CTTE_RETURN_IF_ERROR(fk.ForEachRow([&]() -> Status {
    shape.references[fk.Text(3)] = fk.Text(2);  // from -> table
    return Status::Ok();
  }));
  Statement info(db, ("PRAGMA table_info(" + Quoted(table) + ")").c_str());
  int pk_columns = 0;
  std::string pk, pk_type;
  CTTE_RETURN_IF_ERROR(info.ForEachRow([&]() -> Status {
    shape.columns.push_back(info.Text(1));
    if (info.Int(5) > 0) {
      ++pk_columns;
      pk = info.Text(1);
      pk_type = info.Text(2);
    }
    return Status::Ok();
  }));
  if (pk_columns == 1 && pk_type == "INTEGER" && !shape.references.contains(pk)) {
    shape.rowid_alias = pk;
  }
  return shape;
}

}  // namespace

std::vector<std::string> TableShape::Copied() const {
  std::vector<std::string> out;
  for (const std::string& c : columns) {
    if (c != rowid_alias) out.push_back(c);
  }
  return out;
}

Result<MergeSchema> ReadMergeSchema(sqlite3* db, const std::string& path) {
  Statement tables(db,
                   "SELECT name FROM sqlite_schema WHERE type = 'table' "
                   "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name");
  MergeSchema schema;
  std::vector<TableShape> pending;  // tables with no foreign key to runs
  bool seen[4] = {false, false, false, false};
  CTTE_RETURN_IF_ERROR(tables.ForEachRow([&]() -> Status {
    // Counts the triggers keep (schema.h): the output's triggers fill them from the copied rows.
    if (IsDerivedTable(tables.Text(0))) return Status::Ok();
    auto shape = ReadShape(db, tables.Text(0));
    if (!shape.ok()) return shape.status();
    const std::string& name = shape->name;
    int known = 0;
    for (TableShape* t : {&schema.campaigns, &schema.images, &schema.boards, &schema.runs}) {
      const char* names[] = {"campaigns", "images", "boards", "runs"};
      if (name == names[known]) {
        *t = *shape;
        seen[known] = true;
        break;
      }
      ++known;
    }
    if (known < 4) return Status::Ok();
    std::vector<std::string> to_runs;
    for (const auto& [column, target] : shape->references) {
      if (target == "runs") to_runs.push_back(column);
    }
    if (to_runs.empty()) {  // perhaps a child of a run table: placed once every table is read
      pending.push_back(std::move(*shape));
      return Status::Ok();
    }
    if (to_runs.size() != 1) {
      return Status::InvalidArgument(
          path + ": table " + name +
          (to_runs.empty() ? " has no foreign key to runs"
                           : " has more than one foreign key to runs") +
          "; merge carries campaigns, images, boards, runs and the tables of a run (one "
          "foreign key to runs), so it cannot merge this file (db/row_copy.cc)");
    }
    for (const auto& [column, target] : shape->references) {
      if (target != "runs" && target != "boards" && target != "images" &&
          target != "campaigns") {
        return Status::InvalidArgument(path + ": column " + name + "." + column +
                                       " points at table " + target +
                                       ", which merge does not map (db/row_copy.cc)");
      }
    }
    schema.run_tables.push_back({std::move(*shape), to_runs[0]});
    return Status::Ok();
  }));
  for (int k = 0; k < 4; ++k) {
    if (!seen[k]) return Status::InvalidArgument(path + ": not a lab database (a table is missing)");
  }
  // Children: exactly one foreign key to a placed run or child table (which has a rowid alias),
  // any others to the keyed tables. Placed parents first, until nothing more can be placed.
  auto placed = [&](const std::string& table) -> const TableShape* {
    for (const auto& t : schema.run_tables) {
      if (t.shape.name == table) return &t.shape;
    }
    for (const auto& t : schema.child_tables) {
      if (t.shape.name == table) return &t.shape;
    }
    return nullptr;
  };
  for (bool progress = true; progress && !pending.empty();) {
    progress = false;
    for (auto it = pending.begin(); it != pending.end();) {
      std::vector<std::pair<std::string, std::string>> parents;
      bool other = false;
      for (const auto& [column, target] : it->references) {
        if (target == "boards" || target == "images" || target == "campaigns") continue;
        if (const TableShape* p = placed(target); p != nullptr && !p->rowid_alias.empty()) {
          parents.emplace_back(column, target);
        } else {
          other = true;
        }
      }
      if (!other && parents.size() == 1) {
        schema.child_tables.push_back({std::move(*it), parents[0].first, parents[0].second});
        it = pending.erase(it);
        progress = true;
      } else {
        ++it;
      }
    }
  }
  if (!pending.empty()) {
    return Status::InvalidArgument(
        path + ": table " + pending.front().name +
        " has no foreign key to runs nor to one table of a run; merge carries campaigns, "
        "images, boards, runs and the tables of a run, so it cannot merge this file "
        "(db/row_copy.cc)");
  }
  return schema;
}

Result<CopyResult> CopyRows(sqlite3* in, sqlite3* out, const TableShape& shape,
                            const CopySpec& spec, const IdMaps& maps) {
  const std::vector<std::string> columns = shape.Copied();
  Statement sel(in, ("SELECT " + JoinQuoted(columns) + " FROM " + Quoted(shape.name) +
                     " WHERE " + spec.where + " ORDER BY rowid")
                        .c_str());
  sel.Bind(1, spec.key);
  std::string params;
  for (size_t p = 1; p <= columns.size(); ++p) {
    params += (p > 1 ? ", ?" : "?") + std::to_string(p);
  }
  const int id_param = static_cast<int>(columns.size()) + 1;
  const std::string sql =
      spec.update_id
          ? "UPDATE " + Quoted(shape.name) + " SET (" + JoinQuoted(columns) + ") = (" + params +
                ") WHERE rowid = ?" + std::to_string(id_param)
          : "INSERT INTO " + Quoted(shape.name) + " (" + JoinQuoted(columns) + ") VALUES (" +
                params + ")" + spec.insert_suffix;
  CopyResult result;
  Status copied = sel.ForEachRow([&]() -> Status {
    if (spec.update_id && result.changed > 0) {
      return Status::Internal("copy of " + shape.name + ": more than one row to update");
    }
    Statement w(out, sql.c_str());
    for (size_t c = 0; c < columns.size(); ++c) {
      const int param = static_cast<int>(c) + 1;
      const std::string& column = columns[c];
      if (auto set = spec.set.find(column); set != spec.set.end()) {
        w.BindOpt(param, set->second);
        continue;
      }
      auto ref = shape.references.find(column);
      if (ref == shape.references.end() || sel.IsNull(static_cast<int>(c))) {
        w.BindValue(param, sel.Value(static_cast<int>(c)));
        continue;
      }
      auto map = maps.find(ref->second);
      if (map == maps.end()) {
        return Status::Internal("copy of " + shape.name + "." + column + ": no id map for " +
                                ref->second);
      }
      const int64_t from = sel.Int(static_cast<int>(c));
      auto to = map->second.find(from);
      if (to == map->second.end()) {
        return Status::Corruption(shape.name + "." + column + " = " + std::to_string(from) +
                                  " points at no " + ref->second + " row");
      }
      w.Bind(param, to->second);
    }
    if (spec.update_id) w.Bind(id_param, *spec.update_id);
    CTTE_RETURN_IF_ERROR(w.Run());
    const auto changes = static_cast<uint64_t>(sqlite3_changes(out));
    result.changed += changes;
    if (!spec.update_id && changes > 0) result.last_id = sqlite3_last_insert_rowid(out);
    return Status::Ok();
  });
  if (!copied.ok()) return copied;
  return result;
}

Status CopyTableOfRun(sqlite3* in, sqlite3* out, const MergeSchema& schema,
                      const TableShape& shape, const std::string& column, int64_t src_parent,
                      int64_t out_parent, const IdMaps& maps) {
  const std::string where = Quoted(column) + " = ?1";
  std::vector<const MergeSchema::ChildTable*> children;
  for (const MergeSchema::ChildTable& c : schema.child_tables) {
    if (c.parent_table == shape.name) children.push_back(&c);
  }
  if (children.empty()) {  // all the rows at once
    auto rows = CopyRows(in, out, shape, {where, src_parent, {{column, out_parent}}, "", {}}, maps);
    return rows.ok() ? Status::Ok() : rows.status();
  }
  // One row at a time, so that its children get its new id (a parent has a rowid alias).
  const std::string key = Quoted(shape.rowid_alias);
  Statement ids(in, ("SELECT " + key + " FROM " + Quoted(shape.name) + " WHERE " + where +
                     " ORDER BY " + key)
                        .c_str());
  ids.Bind(1, src_parent);
  std::vector<int64_t> src_ids;
  CTTE_RETURN_IF_ERROR(ids.ForEachRow([&]() -> Status {
    src_ids.push_back(ids.Int(0));
    return Status::Ok();
  }));
  for (const int64_t src : src_ids) {
    auto copied =
        CopyRows(in, out, shape, {key + " = ?1", src, {{column, out_parent}}, "", {}}, maps);
    if (!copied.ok()) return copied.status();
    for (const MergeSchema::ChildTable* c : children) {
      CTTE_RETURN_IF_ERROR(CopyTableOfRun(in, out, schema, c->shape, c->parent_column, src,
                                          copied->last_id, maps));
    }
  }
  return Status::Ok();
}

Result<uint64_t> CarryBisectionsOfRun(sqlite3* in, sqlite3* out, const MergeSchema& schema,
                                      int64_t src_run, int64_t out_run, const IdMaps& maps) {
  const MergeSchema::RunTable* table = nullptr;
  for (const MergeSchema::RunTable& t : schema.run_tables) {
    if (t.shape.name == "bisections") table = &t;
  }
  if (table == nullptr) return uint64_t{0};
  Statement in_rows(in, "SELECT id, kind, created_at FROM bisections WHERE run_id = ?1 ORDER BY id");
  in_rows.Bind(1, src_run);
  std::vector<std::tuple<int64_t, std::string, std::string>> rows;
  CTTE_RETURN_IF_ERROR(in_rows.ForEachRow([&]() -> Status {
    rows.emplace_back(in_rows.Int(0), in_rows.Text(1), in_rows.Text(2));
    return Status::Ok();
  }));
  uint64_t added = 0;
  for (const auto& [bid, kind, created] : rows) {
    Statement have(out, "SELECT 1 FROM bisections WHERE run_id = ?1 AND kind = ?2 AND "
                        "created_at = ?3");
    have.Bind(1, out_run);
    have.Bind(2, kind);
    have.Bind(3, created);
    auto found = have.Step();
    if (!found.ok()) return found.status();
    if (*found) continue;
    auto copied =
        CopyRows(in, out, table->shape, {"id = ?1", bid, {{table->run_column, out_run}}, "", {}}, maps);
    if (!copied.ok()) return copied.status();
    for (const MergeSchema::ChildTable& c : schema.child_tables) {
      if (c.parent_table != "bisections") continue;
      CTTE_RETURN_IF_ERROR(CopyTableOfRun(in, out, schema, c.shape, c.parent_column, bid,
                                          copied->last_id, maps));
    }
    ++added;
  }
  return added;
}

bool SameShape(const MergeSchema& a, const MergeSchema& b) {
  if (!(a.campaigns == b.campaigns && a.images == b.images && a.boards == b.boards &&
        a.runs == b.runs && a.run_tables.size() == b.run_tables.size())) {
    return false;
  }
  for (size_t k = 0; k < a.run_tables.size(); ++k) {
    if (!(a.run_tables[k].shape == b.run_tables[k].shape)) return false;
  }
  if (a.child_tables.size() != b.child_tables.size()) return false;
  for (size_t k = 0; k < a.child_tables.size(); ++k) {
    if (!(a.child_tables[k].shape == b.child_tables[k].shape)) return false;
  }
  return true;
}

}  // namespace ctte::db::internal
