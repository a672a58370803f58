// ReplayRun (see replay.h): plan, check the image, run, compare, record.
#include "runner/replay.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <system_error>

#include "base/text.h"
#include "db/artifacts.h"
#include "db/database.h"
#include "db/triage_store.h"
#include "lab/image_manifest.h"
#include "oracle/program_gen.h"
#include "runner/board_worker.h"
#include "runner/campaign_spec.h"
#include "runner/stored_run.h"
#include "runner/outcome_json.h"

#include <nlohmann/json.hpp>

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
  if (stored.status == db::RunStatus::kInfra) {
    const std::string reason = db::StatusReasonOf(stored.metrics_json);
    const std::string why = reason.empty() ? "" : ": " + reason;
    return Status::InvalidArgument(
        "run " + std::to_string(run_id) + " is infra (the lab failed" + why +
        "): it has no stream to compare a replay with. Fix the cause, then run it again in its "
        "campaign (a soak --resume does not re-run infra runs), or run its config alone with "
        "`ctte-lab run --config` (config_json of `ctte-lab show " + std::to_string(run_id) +
        " --json`)");
  }
  if (stored.stream_sha256.empty()) {
    return Status::InvalidArgument("run " + std::to_string(run_id) + " (" +
                                   db::RunStatusName(stored.status) +
                                   ") has no stored stream digest to compare with");
  }
  StoredRunOptions so;
  so.db_path = o.db_path;
  so.artifacts_dir = o.artifacts_dir;
  so.execute = o.execute;
  Result<StoredRun> loaded = LoadStoredRun(**db, run_id, so);
  if (!loaded.ok()) return loaded.status();
  const RunConfig* config = &loaded->config;
  const ExecuteOptions& exec = loaded->execute;
  PreparedRun* prepared = loaded->prepared.get();
  ReplayResult r;
  r.image_source = loaded->image_source;
  r.workload_source = loaded->workload_source;
  r.workload_sha256 = loaded->workload_sha256;
  // The board: on the lab, the run's own (by its stored identity) unless one was chosen.
  BoardSource source = o.boards;
  if (source.lab() && !o.board_chosen) {
    if (!stored.board_id) {
      return Status::InvalidArgument("run " + std::to_string(run_id) +
                                     " stored no board: choose one with --board-name");
    }
    Result<db::BoardRecord> was = (*db)->BoardById(*stored.board_id);
    if (!was.ok()) return was.status();
    const std::string hint = db::StoredBoardName(*was);
    Result<unsigned> slot = FindBoardSlot(source, was->kind, was->serial, hint);
    if (!slot.ok()) {
      return Status::NotFound("run " + std::to_string(run_id) + " ran on " +
                              (hint.empty() ? "" : hint + ", ") + was->kind + " serial " +
                              was->serial + ": " + slot.status().message() +
                              "; replay it on another board with --board-name NAME");
    }
    source = source.Only(*slot);
  } else if (!source.lab()) {
    source.count = config->twin_of ? 2 : 1;  // a twin is judged against a second fresh board
  }
  BoardWorker board(source, 0, db->get(), exec.ring_bytes);
  if (Status st = board.Open(); !st.ok()) return st;
  std::unique_ptr<BoardWorker> twin_board;
  lab::Board* twin = nullptr;
  if (config->twin_of) {  // a determinism twin is judged against a fresh run of the same plan
    if (source.lab()) {
      twin = &board.board();  // one lab board: the twin runs on it after the first run
    } else {
      twin_board = std::make_unique<BoardWorker>(source, 1, nullptr, exec.ring_bytes);
      if (Status st = twin_board->Open(); !st.ok()) return st;
      twin = &twin_board->board();
    }
  }
  r.board_name = board.name();
  r.stored_run_id = row->id;
  r.campaign_name = row->campaign_name;
  r.index = stored.index;
  r.seed = stored.seed;
  r.stored_status = stored.status;
  r.stored_stream_sha256 = stored.stream_sha256;
  const std::string started = NowIsoUtc();
  r.outcome = ExecuteRun(*prepared, board.board(), twin, exec);
  board.Close();
  if (twin_board) twin_board->Close();
  const RunOutcome& out = r.outcome;
  if (out.status == RunStatus::kInfra) {
    // Could not replay: the lab failed, so there is nothing to compare, and it is not a replay.
    r.replayed = false;
    r.comparison = std::string("could not replay (infra, ") + InfraCauseName(out.cause) +
                   "): " + out.status_reason;
    r.replay_of = stored.replay_of ? *stored.replay_of : row->id;
    return r;
  }
  r.replayed = true;
  r.comparison = Compare(**db, run_id, stored, out, &r.first_differing_byte);
  r.identical = out.stream_sha256 == stored.stream_sha256;
  if (!r.identical) {
    bool stored_decode_passed = false;
    if (auto vs = (*db)->VerdictsOfRun(run_id); vs.ok()) {
      for (const db::VerdictRecord& v : *vs) {
        if (v.verdict == oracle::VerdictCodeName(oracle::VerdictCode::kDecodeIntegrity)) {
          stored_decode_passed = v.outcome == db::Outcome::kPass;
        }
      }
    }
    const std::string why = DecodeEquivalence(stored.metrics_json, stored_decode_passed, out);
    if (why.empty()) {
      r.decode_equivalent = true;
      r.comparison = "decode-equivalent: the same decoded PCs (" +
                     std::to_string(out.metrics.decoded_instructions) +
                     " instructions) and the same " + std::to_string(out.metrics.episodes.size()) +
                     " announced-loss episode(s); the bytes " + r.comparison;
    } else {
      r.comparison += "; not decode-equivalent: " + why;
    }
  }

  db::RunRecord rec = StoredRunRecord(out);
  rec.campaign_id = stored.campaign_id;
  rec.replay_of = stored.replay_of ? *stored.replay_of : row->id;
  rec.started_at = started;
  if (board.board_id() != 0) rec.board_id = board.board_id();
  const bool keep = !r.identical || out.status == RunStatus::kRed ||
                    out.status == RunStatus::kInvalid;
  auto id = (*db)->RecordRun(rec, out.VerdictRecords(),
                             keep && !out.stream.empty() ? &out.stream : nullptr);
  if (!id.ok()) return Status::IOError("recording the replay: " + id.status().ToString());
  r.replay_of = *rec.replay_of;
  r.replay_run_id = *id;
  return r;
}

std::string DecodeEquivalence(const std::string& stored_metrics_json, bool stored_decode_passed,
                              const RunOutcome& out) {
  const auto decode_passed = [&out] {
    for (const oracle::Verdict& v : out.verdicts) {
      if (v.code == oracle::VerdictCode::kDecodeIntegrity) return v.outcome == oracle::Outcome::kPass;
    }
    return false;
  };
  if (!stored_decode_passed) return "decode_integrity did not pass on the stored run";
  if (!decode_passed()) return "decode_integrity did not pass on the replay";
  const nlohmann::json m = nlohmann::json::parse(stored_metrics_json, nullptr, false);
  if (!m.is_object()) return "the stored run kept no metrics";
  const auto u64 = [&m](const char* key) -> std::optional<uint64_t> {
    const auto it = m.find(key);
    if (it == m.end() || !it->is_number_unsigned()) return std::nullopt;
    return it->get<uint64_t>();
  };
  const std::pair<const char*, uint64_t> counts[] = {
      {"decoded_instructions", out.metrics.decoded_instructions},
      {"announced_lost_instructions", out.metrics.announced_lost_instructions},
      {"loss_episodes", out.metrics.episodes.size()}};
  for (const auto& [key, now] : counts) {
    const std::optional<uint64_t> then = u64(key);
    if (!then) return std::string("the stored run kept no ") + key;
    if (*then != now) {
      return std::string(key) + " " + std::to_string(*then) + " stored, " + std::to_string(now) +
             " replayed";
    }
  }
  const auto eps = m.find("episodes");
  if (eps == m.end() || !eps->is_array()) return "the stored run kept no episodes";
  for (size_t k = 0; k < eps->size() && k < out.metrics.episodes.size(); ++k) {
    const nlohmann::json& e = (*eps)[k];
    const oracle::LossEpisode& n = out.metrics.episodes[k];
    const bool same = e.is_object() && e.value("recovered", !n.recovered) == n.recovered &&
                      e.value("closed_window", !n.closed_window) == n.closed_window &&
                      (n.ambiguous ? !e.contains("instructions_missing")
                                   : e.value("instructions_missing", n.instructions_missing + 1) ==
                                         n.instructions_missing);
    if (!same) return "loss episode " + std::to_string(k) + " differs";
  }
  return "";
}

bool IsSimulatedBoardKind(const std::string& kind) {
  return kind == "sim" || (kind.size() > 4 && kind.compare(kind.size() - 4, 4, ":sim") == 0);
}

std::string ReplayResult::ToJson(int indent) const {
  nlohmann::ordered_json j = internal::OutcomeToJson(outcome);
  j["replay_of"] = replay_of;
  j["replay_run_id"] = replay_run_id;
  j["replayed"] = replayed;
  j["stored_stream_sha256"] = stored_stream_sha256;
  j["bit_identical"] = identical;
  j["decode_equivalent"] = decode_equivalent;
  j["replay_outcome"] = !replayed ? "not_replayed" : identical ? "bit-identical"
                 : decode_equivalent ? "decode-equivalent" : "differs";
  j["first_differing_byte"] =
      first_differing_byte ? nlohmann::ordered_json(*first_differing_byte) : nlohmann::ordered_json();
  j["comparison"] = comparison;
  j["workload_sha256"] = workload_sha256;
  j["image_source"] = image_source;
  j["workload_source"] = workload_source;
  j["board"]["name"] = board_name;  // beside the outcome's kind and serial
  return j.dump(indent);
}

}  // namespace ctte::runner
