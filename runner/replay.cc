// ReplayRun (see replay.h): plan, check the image, run, compare, record.
#include "runner/replay.h"

#include <filesystem>
#include <memory>
#include <system_error>

#include "base/text.h"
#include "db/database.h"
#include "runner/outcome_json.h"

namespace ctte::runner {
namespace {

// "bit-identical" or where the streams differ; sets *first_diff when the stored bytes exist.
std::string Compare(db::Database& db, int64_t run_id, const db::RunRecord& stored,
                    const RunOutcome& out, std::optional<uint64_t>* first_diff) {
  if (out.stream_sha256 == stored.stream_sha256) return "bit-identical";
  auto old_bytes = db.StreamOfRun(run_id);
  if (!old_bytes.ok()) {
    return "differs: sha256 " + out.stream_sha256 + " (" + std::to_string(out.stream_size) +
           " bytes), stored " + stored.stream_sha256 + " (" +
           std::to_string(stored.stream_size.value_or(0)) +
           " bytes); the stored run kept its digest only, so the first differing byte is unknown "
           "(soak --store-streams all keeps every stream)";
  }
  const std::vector<uint8_t>& a = *old_bytes;
  const std::vector<uint8_t>& b = out.stream;
  uint64_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  *first_diff = i;
  return "differs: first differing byte at offset " + std::to_string(i) + " (stored " +
         std::to_string(a.size()) + " bytes, replay " + std::to_string(b.size()) + " bytes)";
}

}  // namespace

std::string ReplayCommand(int64_t run_id, const std::string& db_path) {
  std::string cmd = "ctte-lab replay " + std::to_string(run_id);
  if (!db_path.empty()) cmd += " --db " + db_path;
  return cmd;
}

Result<ReplayResult> ReplayRun(int64_t run_id, const ReplayOptions& o) {
  std::error_code ec;
  if (!std::filesystem::exists(o.db_path, ec)) {
    return Status::NotFound("no database at " + o.db_path);
  }
  auto db = db::Database::Open(o.db_path);
  if (!db.ok()) return db.status();
  auto row = (*db)->RunById(run_id);
  if (!row.ok()) return Status::NotFound(row.status().message() + " in " + o.db_path);
  const db::RunRecord& stored = row->run;
  if (stored.stream_sha256.empty()) {
    return Status::InvalidArgument("run " + std::to_string(run_id) + " (" +
                                   db::RunStatusName(stored.status) +
                                   ") has no stored stream digest to compare with");
  }
  Result<RunConfig> config = RunConfigFromJson(stored.config_json);
  if (!config.ok()) {
    return Status::InvalidArgument("run " + std::to_string(run_id) +
                                   ": config_json: " + config.status().message());
  }
  Result<PreparedRun> prepared = PrepareRun(*config, o.execute);
  if (!prepared.ok()) return prepared.status();
  if (prepared->manifest.sha256 != stored.image_sha256) {
    return Status::InvalidArgument(
        "image " + stored.image_name + " with SHA-256 " + stored.image_sha256 +
        " is not available: " + prepared->manifest.manifest_path + " names SHA-256 " +
        prepared->manifest.sha256 + " (rebuild the image of that run, or point --image-dir at it)");
  }

  auto board = lab::RemoteBoard::Spawn(o.board);
  if (!board.ok()) return board.status();
  std::unique_ptr<lab::RemoteBoard> twin;
  if (config->twin_of) {  // a determinism twin is judged against a fresh run of the same plan
    auto t = lab::RemoteBoard::Spawn(o.board);
    if (!t.ok()) return t.status();
    twin = std::move(*t);
  }
  ReplayResult r;
  r.stored_run_id = row->id;
  r.campaign_name = row->campaign_name;
  r.index = stored.index;
  r.seed = stored.seed;
  r.stored_status = stored.status;
  r.stored_stream_sha256 = stored.stream_sha256;
  const std::string started = NowIsoUtc();
  r.outcome = ExecuteRun(*prepared, **board, twin.get(), o.execute);
  Result<lab::BoardIdentity> identity = (*board)->Identify();
  (void)(*board)->Shutdown();
  if (twin) (void)twin->Shutdown();
  const RunOutcome& out = r.outcome;
  r.comparison = Compare(**db, run_id, stored, out, &r.first_differing_byte);
  r.identical = out.stream_sha256 == stored.stream_sha256;

  db::RunRecord rec = StoredRunRecord(out);
  rec.campaign_id = stored.campaign_id;
  rec.replay_of = stored.replay_of ? *stored.replay_of : row->id;
  rec.started_at = started;
  if (identity.ok()) {
    if (auto bid = (*db)->UpsertBoard({identity->kind, identity->serial, ""}); bid.ok()) {
      rec.board_id = *bid;
    }
  }
  const bool keep = !r.identical || out.status == RunStatus::kRed ||
                    out.status == RunStatus::kInvalid;
  auto id = (*db)->RecordRun(rec, out.VerdictRecords(),
                             keep && !out.stream.empty() ? &out.stream : nullptr);
  if (!id.ok()) return Status::IOError("recording the replay: " + id.status().ToString());
  r.replay_of = *rec.replay_of;
  r.replay_run_id = *id;
  return r;
}

std::string ReplayResult::ToJson(int indent) const {
  nlohmann::ordered_json j = internal::OutcomeToJson(outcome);
  j["replay_of"] = replay_of;
  j["replay_run_id"] = replay_run_id;
  j["stored_stream_sha256"] = stored_stream_sha256;
  j["bit_identical"] = identical;
  j["first_differing_byte"] =
      first_differing_byte ? nlohmann::ordered_json(*first_differing_byte) : nlohmann::ordered_json();
  j["comparison"] = comparison;
  return j.dump(indent);
}

}  // namespace ctte::runner
