// Merging lab databases (db/merge.h).
//
// What and how: every input gets its own read-only connection and is checked (schema version,
// integrity_check, foreign_key_check) before the output is touched. The output is then opened
// (created and migrated by Database::Open), checked, and written in one BEGIN IMMEDIATE
// transaction: per input, images and boards (keyed rows; a board id map), campaigns (matched
// on name and spec SHA-256; a campaign id map), then runs in id order, so a replay's target is
// always mapped before the replay itself (a replay row is written after the run it replays).
// Rows are copied by the schema itself (row_copy.h: every column PRAGMA table_info lists, with
// its SQLite type; every table with a foreign key to runs travels with its run), foreign keys
// re-pointed through the id maps; so a migration's new column or run table needs no change here. Separate connections rather than ATTACH: ATTACH cannot run
// inside a transaction and is limited to ten files, and a merge of many shards must be one
// transaction.
#include "db/merge.h"

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <tuple>
#include <utility>

#include "db/database.h"
#include "db/merge_checks.h"
#include "db/row_copy.h"
#include "db/statement.h"

namespace ctte::db {

using internal::CheckIntact;
using internal::CheckSchemaVersion;
using internal::Connection;
using internal::CopyRows;
using internal::CopySpec;
using internal::MergeSchema;
using internal::SqliteError;
using internal::Statement;
using internal::Transaction;

namespace {

std::string Prefixed(const std::string& path, const Status& st) {
  return path + ": " + st.message();
}

struct CampaignKey {
  int64_t out_id = 0;
  std::string name, seed, spec_sha256;
  std::string Label() const {
    return name + " (seed " + seed + ", spec SHA-256 " + spec_sha256.substr(0, 12) + "...)";
  }
};

/// The merge of one input into the open output transaction.
class InputMerger {
 public:
  InputMerger(sqlite3* in, sqlite3* out, const std::string& in_path, const std::string& out_path,
              const MergeSchema& schema, const MergeOptions& options,
              std::map<std::pair<int64_t, int64_t>, std::string>* origin,
              MergeInputSummary* summary)
      : in_(in), out_(out), in_path_(in_path), out_path_(out_path), schema_(schema),
        options_(options),
        origin_(origin), summary_(summary) {}

  Status Run() {
    maps_ = {{"boards", {}}, {"campaigns", {}}, {"images", {}}, {"runs", {}}};
    CTTE_RETURN_IF_ERROR(Images());
    CTTE_RETURN_IF_ERROR(Boards());
    CTTE_RETURN_IF_ERROR(Campaigns());
    return Runs();
  }

 private:
  Status Images() {
    Statement sel(in_, "SELECT id FROM images ORDER BY id");
    return sel.ForEachRow(
        [&]() -> Status {
          auto copied =
              CopyRows(in_, out_, schema_.images,
                       {"id = ?1", sel.Int(0), {}, " ON CONFLICT (sha256) DO NOTHING", {}}, maps_);
          if (!copied.ok()) return copied.status();
          summary_->counts.images_added += copied->changed;
          return Status::Ok();
        },
        [this](const Status& st) { return Input(st); });
  }

  Status Boards() {
    Statement sel(in_, "SELECT id, kind, serial FROM boards ORDER BY id");
    return sel.ForEachRow(
        [&]() -> Status {
          auto copied = CopyRows(
              in_, out_, schema_.boards,
              {"id = ?1", sel.Int(0), {}, " ON CONFLICT (kind, serial) DO NOTHING", {}}, maps_);
          if (!copied.ok()) return copied.status();
          summary_->counts.boards_added += copied->changed;
          Statement id(out_, "SELECT id FROM boards WHERE kind = ?1 AND serial = ?2");
          id.Bind(1, sel.Text(1));
          id.Bind(2, sel.Text(2));
          auto found = id.Step();
          if (!found.ok()) return found.status();
          if (!*found) return Status::Internal("board row vanished after insert");
          maps_["boards"][sel.Int(0)] = id.Int(0);
          return Status::Ok();
        },
        [this](const Status& st) { return Input(st); });
  }

  Status Campaigns() {
    Statement sel(in_,
                  "SELECT id, name, description, seed, spec_json, spec_sha256, created_at "
                  "FROM campaigns ORDER BY id");
    return sel.ForEachRow(
        [&]() -> Status {
          CampaignKey key{0, sel.Text(1), sel.Text(3), sel.Text(5)};
          Statement find(out_,
                         "SELECT id, seed, created_at FROM campaigns "
                         "WHERE name = ?1 AND spec_sha256 = ?2");
          find.Bind(1, key.name);
          find.Bind(2, key.spec_sha256);
          auto found = find.Step();
          if (!found.ok()) return found.status();
          if (*found) {
            key.out_id = find.Int(0);
            if (find.Text(1) != key.seed) {
              return Status::InvalidArgument(
                  "campaign " + key.Label() + ": " + in_path_ + " has seed " + key.seed + ", " +
                  out_path_ + " has " + find.Text(1) + " for the same spec; refusing to merge");
            }
            if (sel.Text(6) < find.Text(2)) {  // the campaign began when its first copy did
              Statement up(out_, "UPDATE campaigns SET created_at = ?1 WHERE id = ?2");
              up.Bind(1, sel.Text(6));
              up.Bind(2, key.out_id);
              CTTE_RETURN_IF_ERROR(up.Run());
            }
          } else {
            auto copied =
                CopyRows(in_, out_, schema_.campaigns, {"id = ?1", sel.Int(0), {}, "", {}}, maps_);
            if (!copied.ok()) return copied.status();
            key.out_id = copied->last_id;
            ++summary_->counts.campaigns_added;
          }
          campaigns_[sel.Int(0)] = key;
          maps_["campaigns"][sel.Int(0)] = key.out_id;
          return Status::Ok();
        },
        [this](const Status& st) { return Input(st); });
  }

  Status Runs() {
    Statement sel(in_,
                  "SELECT id, campaign_id, idx, seed, config_json, status, replay_of, "
                  "started_at, wall_ms, stream_sha256 FROM runs ORDER BY id");
    return sel.ForEachRow(
        [&]() -> Status {
          auto campaign = campaigns_.find(sel.Int(1));
          if (campaign == campaigns_.end()) {
            return Input(
                Status::Corruption("run " + std::to_string(sel.Int(0)) + " has no campaign row"));
          }
          CTTE_RETURN_IF_ERROR(sel.IsNull(6) ? Original(sel, campaign->second)
                                             : Replay(sel, campaign->second));
          return Status::Ok();
        },
        [this](const Status& st) { return Input(st); });
  }

  // sel: id, campaign_id, idx, seed, config_json, status, replay_of, started_at, wall_ms,
  //      stream_sha256.
  Status Original(const Statement& sel, const CampaignKey& campaign) {
    const int64_t src_id = sel.Int(0), idx = sel.Int(2);
    Statement find(out_,
                   "SELECT id, seed, config_json, status, IFNULL(stream_sha256, '') FROM runs "
                   "WHERE campaign_id = ?1 AND idx = ?2 AND replay_of IS NULL");
    find.Bind(1, campaign.out_id);
    find.Bind(2, idx);
    auto found = find.Step();
    if (!found.ok()) return found.status();
    if (*found) {
      const int64_t out_id = find.Int(0);
      maps_["runs"][src_id] = out_id;
      // Columns (input, output) that must agree: the run seed, then the configuration.
      for (const auto& [in_col, out_col, what] :
           {std::tuple{3, 1, "run seed"}, std::tuple{4, 2, "config_json"}}) {
        if (sel.Text(in_col) == find.Text(out_col)) continue;
        return Status::InvalidArgument(
            "campaign " + campaign.Label() + " index " + std::to_string(idx) + ": " + in_path_ +
            " and " + OriginOf(campaign.out_id, idx) + " disagree about the run (" + what +
            " differs: " + sel.Text(in_col).substr(0, 80) + " vs " +
            find.Text(out_col).substr(0, 80) + "); refusing to merge");
      }
      const bool out_planned = find.Text(3) == "planned";
      const bool in_planned = sel.Text(5) == "planned";
      const bool out_infra = find.Text(3) == "infra", in_infra = sel.Text(5) == "infra";
      // Precedence: a finished input run completes a planned row, and a judged one (green,
      // red, invalid) replaces an infra row (a shard re-run with --retry-infra merged later);
      // an infra input never replaces a judged row. Only two judged results can disagree.
      if ((out_planned && !in_planned) || (out_infra && !in_planned && !in_infra)) {
        auto copied = CopyRun(src_id, campaign.out_id, std::nullopt, out_id);
        if (!copied.ok()) return copied.status();
        (*origin_)[{campaign.out_id, idx}] = in_path_;
        ++summary_->counts.runs_added;
        return Status::Ok();
      }
      ++summary_->counts.runs_present;
      const std::string in_digest = sel.IsNull(9) ? "" : sel.Text(9);
      if (!out_planned && !in_planned && !out_infra && !in_infra &&
          (find.Text(3) != sel.Text(5) || find.Text(4) != in_digest)) {
        const std::string what =
            "campaign " + campaign.Label() + " index " + std::to_string(idx) + ": " + in_path_ +
            " has " + sel.Text(5) + " stream " + in_digest.substr(0, 12) + ", " +
            OriginOf(campaign.out_id, idx) + " has " + find.Text(3) + " stream " +
            find.Text(4).substr(0, 12);
        if (!options_.keep_differing) {
          return Status::InvalidArgument(
              what + ": two judged runs of one configuration disagree (a determinism finding); "
                     "refusing to merge (--keep-differing keeps the output's and lists them)");
        }
        summary_->differing_results.push_back(what + " (kept)");
      }
      return CarryBisections(src_id, out_id);
    }
    if (!options_.keep_spec_versions) CTTE_RETURN_IF_ERROR(CheckSpecDrift(campaign, idx));
    auto id = CopyRun(src_id, campaign.out_id, std::nullopt, std::nullopt);
    if (!id.ok()) return id.status();
    maps_["runs"][src_id] = *id;
    (*origin_)[{campaign.out_id, idx}] = in_path_;
    ++summary_->counts.runs_added;
    return Status::Ok();
  }

  Status Replay(const Statement& sel, const CampaignKey& campaign) {
    const int64_t src_id = sel.Int(0);
    auto target = maps_["runs"].find(sel.Int(6));
    if (target == maps_["runs"].end()) {
      return Input(Status::Corruption("replay run " + std::to_string(src_id) +
                                      " precedes the run it replays (" +
                                      std::to_string(sel.Int(6)) + ")"));
    }
    Statement find(out_,
                   "SELECT id FROM runs WHERE campaign_id = ?1 AND idx = ?2 AND replay_of = ?3 "
                   "AND started_at IS ?4 AND wall_ms IS ?5 AND status = ?6 "
                   "AND stream_sha256 IS ?7 AND config_json = ?8 ORDER BY id LIMIT 1");
    find.Bind(1, campaign.out_id);
    find.Bind(2, sel.Int(2));
    find.Bind(3, target->second);
    find.BindValue(4, sel.Value(7));
    find.BindValue(5, sel.Value(8));
    find.BindValue(6, sel.Value(5));
    find.BindValue(7, sel.Value(9));
    find.BindValue(8, sel.Value(4));
    auto found = find.Step();
    if (!found.ok()) return found.status();
    if (*found) {
      maps_["runs"][src_id] = find.Int(0);
      ++summary_->counts.replays_present;
      return Status::Ok();
    }
    auto id = CopyRun(src_id, campaign.out_id, target->second, std::nullopt);
    if (!id.ok()) return id.status();
    maps_["runs"][src_id] = *id;
    ++summary_->counts.replays_added;
    return Status::Ok();
  }

  /// Refuses an index that a campaign of the same name and seed but another spec already has.
  Status CheckSpecDrift(const CampaignKey& campaign, int64_t idx) {
    Statement s(out_,
                "SELECT c.id, c.spec_sha256 FROM runs r JOIN campaigns c ON c.id = r.campaign_id "
                "WHERE c.name = ?1 AND c.seed = ?2 AND c.id != ?3 AND r.idx = ?4 "
                "AND r.replay_of IS NULL ORDER BY c.id LIMIT 1");
    s.Bind(1, campaign.name);
    s.Bind(2, campaign.seed);
    s.Bind(3, campaign.out_id);
    s.Bind(4, idx);
    auto row = s.Step();
    if (!row.ok()) return row.status();
    if (!*row) return Status::Ok();
    return Status::InvalidArgument(
        "campaign " + campaign.name + " (seed " + campaign.seed + ") index " +
        std::to_string(idx) + ": " + in_path_ + " ran it from a spec with SHA-256 " +
        campaign.spec_sha256 + ", " + OriginOf(s.Int(0), idx) + " from one with SHA-256 " +
        s.Text(1) +
        "; the inputs are not shards of one campaign (--keep-spec-versions keeps both as "
        "separate campaign rows); refusing to merge");
  }

  /// Copies input run `src_id` (with the rows of every run table: verdicts, stream, attempts,
  /// ...) into a new output row, or over the planned row `update_id`. Returns the output row id.
  Result<int64_t> CopyRun(int64_t src_id, int64_t out_campaign_id,
                          std::optional<int64_t> replay_of, std::optional<int64_t> update_id) {
    CopySpec run{"id = ?1", src_id, {{"campaign_id", out_campaign_id}, {"replay_of", replay_of}},
                 "", update_id};
    auto copied = CopyRows(in_, out_, schema_.runs, run, maps_);
    if (!copied.ok()) return Input(copied.status());
    if (copied->changed != 1) return Status::Internal("input run vanished");
    const int64_t out_id = update_id ? *update_id : copied->last_id;
    for (const MergeSchema::RunTable& t : schema_.run_tables) {
      const std::string column = "\"" + t.run_column + "\"";
      if (update_id) {  // a planned row has no verdicts, stream or attempts, but make sure
        Statement del(out_, ("DELETE FROM \"" + t.shape.name + "\" WHERE " + column + " = ?1")
                                .c_str());
        del.Bind(1, out_id);
        CTTE_RETURN_IF_ERROR(del.Run());
      }
      Status st =
          CopyTableOfRun(in_, out_, schema_, t.shape, t.run_column, src_id, out_id, maps_);
      if (!st.ok()) return Input(st);
    }
    return out_id;
  }

  /// Copies the input's bisections of run `src_id` (with their legs) to the output's run
  /// `out_id`, each unless the output has one of the same kind and creation time for it.
  Status CarryBisections(int64_t src_id, int64_t out_id) {
    Result<uint64_t> added = internal::CarryBisectionsOfRun(in_, out_, schema_, src_id, out_id, maps_);
    if (!added.ok()) return Input(added.status());
    summary_->counts.bisections_added += *added;
    return Status::Ok();
  }

  std::string OriginOf(int64_t out_campaign_id, int64_t idx) const {
    auto it = origin_->find({out_campaign_id, idx});
    return it == origin_->end() ? out_path_ : it->second;
  }
  Status Input(const Status& st) const {
    return Status::Corruption("input " + in_path_ + ": " + st.message());
  }

  sqlite3* in_;
  sqlite3* out_;
  const std::string& in_path_;
  const std::string& out_path_;
  const MergeSchema& schema_;
  const MergeOptions& options_;
  std::map<std::pair<int64_t, int64_t>, std::string>* origin_;
  MergeInputSummary* summary_;
  internal::IdMaps maps_;                      // input id -> output id, per table
  std::map<int64_t, CampaignKey> campaigns_;   // input id -> output campaign
};

void Add(const MergeCounts& c, MergeCounts* total) {
  total->campaigns_added += c.campaigns_added;
  total->runs_added += c.runs_added;
  total->runs_present += c.runs_present;
  total->replays_added += c.replays_added;
  total->replays_present += c.replays_present;
  total->images_added += c.images_added;
  total->boards_added += c.boards_added;
  total->bisections_added += c.bisections_added;
}

/// Removes a database file that this merge created, with its WAL and shared-memory files.
class RemoveUnlessCommitted {
 public:
  explicit RemoveUnlessCommitted(std::string path) : path_(std::move(path)) {}
  ~RemoveUnlessCommitted() {
    if (path_.empty()) return;
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
      std::filesystem::remove(path_ + suffix, ec);
    }
  }
  void Keep() { path_.clear(); }

 private:
  std::string path_;
};

}  // namespace

Result<MergeSummary> MergeDatabases(const std::string& output,
                                    const std::vector<std::string>& inputs,
                                    const MergeOptions& options) {
  namespace fs = std::filesystem;
  if (inputs.empty()) return Status::InvalidArgument("no input databases to merge");
  std::error_code ec;
  const bool output_existed = fs::exists(output, ec);
  for (const std::string& in : inputs) {
    if (!fs::is_regular_file(in, ec)) {
      return Status::NotFound("input " + in + " is not a file");
    }
    if (output_existed && fs::equivalent(output, in, ec)) {
      return Status::InvalidArgument("output " + output + " is also an input (" + in +
                                     "): merge into a new or another file");
    }
  }

  // Every input is checked before the output is touched.
  std::vector<std::unique_ptr<Connection>> in_conns;
  std::vector<MergeSchema> in_schemas;
  for (const std::string& in : inputs) {
    auto c = std::make_unique<Connection>();
    CTTE_RETURN_IF_ERROR(c->Open(in, SQLITE_OPEN_READONLY, options.busy_timeout_ms));
    CTTE_RETURN_IF_ERROR(CheckSchemaVersion(c->get(), in));
    CTTE_RETURN_IF_ERROR(CheckIntact(c->get(), in, "input"));
    auto schema = internal::ReadMergeSchema(c->get(), in);
    if (!schema.ok()) return schema.status();
    in_schemas.push_back(std::move(*schema));
    in_conns.push_back(std::move(c));
  }
  if (output_existed) {
    Connection check;
    CTTE_RETURN_IF_ERROR(check.Open(output, SQLITE_OPEN_READONLY, options.busy_timeout_ms));
    CTTE_RETURN_IF_ERROR(CheckIntact(check.get(), output, "output"));
  }

  RemoveUnlessCommitted cleanup(output_existed ? "" : output);
  {
    auto created = Database::Open(output, Database::Options{options.busy_timeout_ms});
    if (!created.ok()) return Status::IOError(Prefixed(output, created.status()));
  }
  Connection out;
  CTTE_RETURN_IF_ERROR(out.Open(output, SQLITE_OPEN_READWRITE, options.busy_timeout_ms));
  if (sqlite3_exec(out.get(), "PRAGMA foreign_keys=ON", nullptr, nullptr, nullptr) != SQLITE_OK) {
    return SqliteError(out.get(), output + ": foreign_keys");
  }

  auto out_schema = internal::ReadMergeSchema(out.get(), output);
  if (!out_schema.ok()) return out_schema.status();
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (!internal::SameShape(in_schemas[k], *out_schema)) {
      return Status::InvalidArgument("input " + inputs[k] + " and output " + output +
                                     " have the same schema version but different tables or "
                                     "columns (built by different migrations); refusing to merge");
    }
  }

  MergeSummary summary;
  summary.output_created = !output_existed;
  std::map<std::pair<int64_t, int64_t>, std::string> origin;
  Transaction tx(out.get());
  CTTE_RETURN_IF_ERROR(tx.status());
  for (size_t k = 0; k < inputs.size(); ++k) {
    MergeInputSummary in_summary;
    in_summary.path = inputs[k];
    InputMerger m(in_conns[k]->get(), out.get(), inputs[k], output, *out_schema, options,
                  &origin, &in_summary);
    CTTE_RETURN_IF_ERROR(m.Run());
    Add(in_summary.counts, &summary.total);
    summary.inputs.push_back(std::move(in_summary));
  }
  CTTE_RETURN_IF_ERROR(CheckIntact(out.get(), output, "merged output"));
  CTTE_RETURN_IF_ERROR(tx.Commit());
  cleanup.Keep();
  return summary;
}

}  // namespace ctte::db
