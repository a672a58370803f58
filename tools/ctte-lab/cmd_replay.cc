// `ctte-lab replay RUN`: re-executes a stored run (its seed, config, image and clocks) on a fresh
// simulated board, compares the new stream with the stored one ("bit-identical", or the first
// differing byte offset), re-judges (runner/execute.h) and records the replay as a new run row
// with replay_of set. Refuses when the image with the stored SHA-256 is not available.
// Exit: 0 bit-identical, 1 the stream differs, 2 usage or infrastructure error.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cinttypes>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <memory>

#include "db/database.h"
#include "lab/remote_board.h"
#include "runner/execute.h"
#include "runner/run_config.h"
#include "runner/soak.h"
#include "tools/ctte-lab/command.h"
#include "tools/ctte-lab/plan_flags.h"

namespace ctte::cli {
namespace {

struct ReplayFlags {
  int64_t run_id = 0;
  std::string db_path = "out/ctte.db";
  std::string waves;
  std::string image_dir = CTTE_DEFAULT_IMAGE_DIR;
  std::string workload_dir = CTTE_DEFAULT_WORKLOAD_DIR;
  std::string board_path;
  bool json = false;
};

int Fail(const std::string& msg) {
  std::fprintf(stderr, "ctte-lab replay: %s\n", msg.c_str());
  return kExitUsage;
}

std::string NowIso() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

int RunReplay(const ReplayFlags& f) {
  if (!std::filesystem::exists(f.db_path)) return Fail("no database at " + f.db_path);
  auto db = db::Database::Open(f.db_path);
  if (!db.ok()) return Fail(db.status().ToString());
  auto row = (*db)->RunById(f.run_id);
  if (!row.ok()) return Fail(row.status().message() + " in " + f.db_path);
  const db::RunRecord& stored = row->run;
  if (stored.stream_sha256.empty()) {
    return Fail("run " + std::to_string(f.run_id) + " (" + db::RunStatusName(stored.status) +
                ") has no stored stream digest to compare with");
  }
  Result<runner::RunConfig> config = runner::RunConfigFromJson(stored.config_json);
  if (!config.ok()) {
    return Fail("run " + std::to_string(f.run_id) + ": config_json: " + config.status().message());
  }
  runner::ExecuteOptions o;
  o.image_dir = f.image_dir;
  o.workload_dir = f.workload_dir;
  o.fst_path = f.waves;
  Result<runner::PreparedRun> prepared = runner::PrepareRun(*config, o);
  if (!prepared.ok()) return Fail(prepared.status().ToString());
  if (prepared->manifest.sha256 != stored.image_sha256) {
    return Fail("image " + stored.image_name + " with SHA-256 " + stored.image_sha256 +
                " is not available: " + prepared->manifest.manifest_path + " names SHA-256 " +
                prepared->manifest.sha256 + " (rebuild the image of that run, or point "
                "--image-dir at it)");
  }

  lab::RemoteBoardOptions bo;
  bo.board_path = f.board_path.empty() ? BoardPathNextToSelf() : f.board_path;
  auto board = lab::RemoteBoard::Spawn(bo);
  if (!board.ok()) return Fail(board.status().ToString());
  std::unique_ptr<lab::RemoteBoard> twin;
  if (config->twin_of) {  // a determinism twin is judged against a fresh run of the same plan
    auto t = lab::RemoteBoard::Spawn(bo);
    if (!t.ok()) return Fail(t.status().ToString());
    twin = std::move(*t);
  }
  const std::string started = NowIso();
  runner::RunOutcome out = runner::ExecuteRun(*prepared, **board, twin.get(), o);
  Result<lab::BoardIdentity> identity = (*board)->Identify();
  (void)(*board)->Shutdown();
  if (twin) (void)twin->Shutdown();

  const bool identical = out.stream_sha256 == stored.stream_sha256;
  std::string comparison = "bit-identical";
  std::optional<uint64_t> first_diff;
  if (!identical) {
    auto old_bytes = (*db)->StreamOfRun(f.run_id);
    if (old_bytes.ok()) {
      const std::vector<uint8_t>& a = *old_bytes;
      const std::vector<uint8_t>& b = out.stream;
      uint64_t i = 0;
      while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
      first_diff = i;
      comparison = "differs: first differing byte at offset " + std::to_string(i) + " (stored " +
                   std::to_string(a.size()) + " bytes, replay " + std::to_string(b.size()) +
                   " bytes)";
    } else {
      comparison = "differs: sha256 " + out.stream_sha256 + " (" +
                   std::to_string(out.stream_size) + " bytes), stored " + stored.stream_sha256 +
                   " (" + std::to_string(stored.stream_size.value_or(0)) +
                   " bytes); the stored run kept its digest only, so the first differing byte "
                   "is unknown (soak --store-streams all keeps every stream)";
    }
  }

  db::RunRecord rec = runner::StoredRunRecord(out);
  rec.campaign_id = stored.campaign_id;
  rec.replay_of = stored.replay_of ? *stored.replay_of : row->id;
  rec.started_at = started;
  if (identity.ok()) {
    if (auto bid = (*db)->UpsertBoard({identity->kind, identity->serial, ""}); bid.ok()) {
      rec.board_id = *bid;
    }
  }
  const bool keep = !identical || out.status == db::RunStatus::kRed ||
                    out.status == db::RunStatus::kInvalid;
  auto id = (*db)->RecordRun(rec, out.VerdictRecords(),
                             keep && !out.stream.empty() ? &out.stream : nullptr);
  if (!id.ok()) return Fail("recording the replay: " + id.status().ToString());

  if (f.json) {
    nlohmann::ordered_json j = nlohmann::ordered_json::parse(out.ToJson());
    j["replay_of"] = *rec.replay_of;
    j["replay_run_id"] = *id;
    j["stored_stream_sha256"] = stored.stream_sha256;
    j["bit_identical"] = identical;
    j["first_differing_byte"] = first_diff ? nlohmann::ordered_json(*first_diff)
                                           : nlohmann::ordered_json();
    j["comparison"] = comparison;
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("replay of run %" PRId64 " (%s #%" PRIu64 ", seed %s), recorded as run %" PRId64
                "\n",
                row->id, row->campaign_name.c_str(), stored.index,
                runner::SeedHex(stored.seed).c_str(), *id);
    std::printf("stream: %s\n", comparison.c_str());
    std::printf("%s", runner::FormatOutcome(out).c_str());
    std::printf("stored status: %s\n", db::RunStatusName(stored.status));
  }
  if (out.status == db::RunStatus::kInfra) return kExitUsage;
  return identical ? kExitOk : kExitRed;
}

const Registrar kRegistrar{Command{
    "replay", "Re-execute a stored run and compare its stream bit for bit; re-judge; record it",
    58,
    [](CLI::App& sub) -> std::function<int()> {
      auto f = std::make_shared<ReplayFlags>();
      sub.add_option("run", f->run_id, "run id (runs.id)")->required();
      sub.add_option("--db", f->db_path, "database file (default out/ctte.db)");
      sub.add_option("--waves", f->waves, "write an FST waveform of the replay here");
      sub.add_option("--image-dir", f->image_dir, "image manifests");
      sub.add_option("--workload-dir", f->workload_dir, "workload ELFs");
      sub.add_option("--board", f->board_path, "the ctte-board executable");
      sub.add_flag("--json", f->json, "print JSON");
      return [f] { return RunReplay(*f); };
    }}};

}  // namespace
}  // namespace ctte::cli
