// `ctte-lab show RUN`: one stored run (docs/db-schema.md): its config, clocks, image, stream,
// verdicts with evidence, and the command that replays it. Reads the database only.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cinttypes>
#include <cstdio>
#include <memory>

#include "base/json.h"
#include "db/database.h"
#include "db/triage_store.h"
#include "reports/triage_text.h"
#include "reports/control_table.h"
#include "runner/replay.h"
#include "runner/run_config.h"
#include "tools/ctte-lab/command.h"

namespace ctte::cli {
namespace {

using Json = nlohmann::ordered_json;

struct ShowFlags {
  int64_t run_id = 0;
  std::string db_path = "out/ctte.db";
  bool json = false;
};

int ShowFail(const Status& s) {
  std::fprintf(stderr, "ctte-lab show: %s\n", s.ToString().c_str());
  return kExitUsage;
}

Json ParsedOrNull(const std::string& text) {
  if (text.empty()) return Json();
  Result<nlohmann::ordered_json> j = ParseJsonText(text, "stored column");
  return j.ok() ? Json(*j) : Json(text);  // unparsable: shown as stored
}

Json ClockJson(const db::ClockReading& c) {
  const auto v = [](const std::optional<uint64_t>& x) { return x ? Json(*x) : Json(); };
  return Json{{"requested_hz", v(c.requested_hz)}, {"programmed_hz", v(c.programmed_hz)},
              {"read_back_hz", v(c.read_back_hz)}};
}

std::string Hz(const std::optional<uint64_t>& v) {
  return v ? std::to_string(*v) : std::string("-");
}

int RunShow(const ShowFlags& f) {
  // Read-only: show works on a read-only database or folder and never migrates the file.
  auto db = db::Database::OpenReadOnly(f.db_path);
  if (!db.ok()) return ShowFail(db.status());
  auto row = (*db)->RunById(f.run_id);
  if (!row.ok()) return ShowFail(Status::NotFound(row.status().message() + " in " + f.db_path));
  auto verdicts = (*db)->VerdictsOfRun(f.run_id);
  auto bisections = db::TriageStore::BisectionsOfRun(**db, f.run_id);
  if (!verdicts.ok()) return ShowFail(verdicts.status());
  auto stream = (*db)->StreamOfRun(f.run_id);
  const bool bytes_kept = stream.ok();
  auto pins = (*db)->PinsOfRun(f.run_id);
  if (!pins.ok()) return ShowFail(pins.status());
  const db::RunRecord& r = row->run;
  const Json config = ParsedOrNull(r.config_json);
  const Json metrics = ParsedOrNull(r.metrics_json);
  const std::string reason = db::StatusReasonOf(r.metrics_json);
  // An infra run has no stream to compare: `replay` refuses it; it is run again in place.
  const std::string replay =
      r.status == db::RunStatus::kInfra
          ? "none: the run is infra (the lab failed); run it again in place with `ctte-lab soak "
            "SPEC --db " + f.db_path + " --resume " + std::to_string(r.campaign_id) +
            " --retry-infra`"
          : runner::ReplayCommand(row->id, f.db_path);
  std::vector<reports::ControlRow> controls;
  if (auto rows = (*db)->ControlRunsOfCampaign(r.campaign_id); rows.ok()) {
    controls = reports::ControlRows(*rows);
  }
  const std::optional<reports::ControlRow> control = reports::ControlRowOf(*row);
  const bool unsound = reports::Unsound(controls);
  // The earlier attempts (board deaths, respawns, retries); a schema-1 file has none.
  auto attempts = (*db)->AttemptsOfRun(f.run_id);
  if (!attempts.ok()) return ShowFail(attempts.status());

  if (f.json) {
    Json j;
    j["id"] = row->id;
    j["campaign"] = row->campaign_name;
    j["campaign_id"] = r.campaign_id;
    j["index"] = r.index;
    j["seed"] = runner::SeedHex(r.seed);
    j["status"] = db::RunStatusName(r.status);
    j["reason"] = reason;
    j["infra_cause"] = r.infra_cause.empty() ? Json() : Json(r.infra_cause);
    Json as = Json::array();
    for (size_t k = 0; k < attempts->size(); ++k) {
      const db::AttemptRecord& a = (*attempts)[k];
      as.push_back({{"attempt", k + 1}, {"board_id", a.board_id ? Json(*a.board_id) : Json()},
                    {"status", db::RunStatusName(a.status)},
                    {"infra_cause", a.infra_cause.empty() ? Json() : Json(a.infra_cause)},
                    {"board_death", db::IsBoardDeath(a.infra_cause)},
                    {"respawned", a.respawned}, {"reason", a.reason},
                    {"started_at", a.started_at},
                    {"wall_ms", a.wall_ms ? Json(*a.wall_ms) : Json()}});
    }
    j["earlier_attempts"] = as;
    j["replay_of"] = r.replay_of ? Json(*r.replay_of) : Json();
    j["config"] = config;
    j["image"] = {{"name", r.image_name}, {"sha256", r.image_sha256}};
    j["pins"] = *pins ? Json{{"workload", (*pins)->workload},
                             {"workload_path", (*pins)->workload_path},
                             {"workload_sha256", (*pins)->workload_sha256},
                             {"generator_version", (*pins)->generator_version},
                             {"tool_version", (*pins)->tool_version}}
                      : Json();
    j["board_id"] = r.board_id ? Json(*r.board_id) : Json();
    j["clocks"] = {{"fabric", ClockJson(r.fabric)}, {"sink", ClockJson(r.sink)}};
    j["started_at"] = r.started_at;
    j["wall_ms"] = r.wall_ms ? Json(*r.wall_ms) : Json();
    j["stream"] = {{"sha256", r.stream_sha256},
                   {"size", r.stream_size ? Json(*r.stream_size) : Json()},
                   {"bytes_stored", bytes_kept}};
    Json vs = Json::array();
    for (const db::VerdictRecord& v : *verdicts) {
      vs.push_back({{"verdict", v.verdict}, {"outcome", db::OutcomeName(v.outcome)},
                    {"evidence", v.evidence}, {"metrics", ParsedOrNull(v.metrics_json)},
                    {"doc", "docs/verdicts.md#" + v.verdict}});
    }
    j["verdicts"] = vs;
    j["counters"] = ParsedOrNull(r.counters_json);
    j["metrics"] = metrics;
    j["replay"] = replay;
    j["control"] = control ? Json{{"name", control->name}, {"expect_red", control->expect_red},
                                  {"observed_red", control->observed_red},
                                  {"passed", control->passed}, {"reason", control->reason}}
                           : Json();
    j["campaign_unsound"] = unsound;
    Json bis = Json::array();
    if (bisections.ok()) {
      for (const db::BisectionRecord& b : *bisections) {
        bis.push_back({{"id", b.id}, {"kind", b.kind}, {"verdict", b.verdict},
                       {"culprits", b.culprits}, {"summary", b.summary},
                       {"legs", b.legs.size()}, {"minimal_command", b.minimal_command}});
      }
    }
    j["bisections"] = bis;
    std::printf("%s\n", j.dump(2).c_str());
    return kExitOk;
  }

  if (!controls.empty()) {
    std::printf("controls of campaign %" PRId64 ":\n%s\n", r.campaign_id,
                reports::FormatControlTable(controls).c_str());
  }
  std::printf("run %" PRId64 ": campaign %s (id %" PRId64 ") index %" PRIu64 ", seed %s%s\n",
              row->id, row->campaign_name.c_str(), r.campaign_id, r.index,
              runner::SeedHex(r.seed).c_str(),
              control ? (" (control " + control->name + ": " +
                         (control->passed ? "pass" : "FAIL") + ")").c_str()
                      : (unsound ? " (draw of an UNSOUND campaign)" : ""));
  std::printf("status:  %s%s%s\n", db::RunStatusName(r.status), reason.empty() ? "" : ": ",
              reason.c_str());
  if (!r.infra_cause.empty()) std::printf("cause:   %s\n", r.infra_cause.c_str());
  for (size_t k = 0; k < attempts->size(); ++k) {
    const db::AttemptRecord& a = (*attempts)[k];
    std::printf("attempt %zu: %s%s%s on board %s%s%s%s: %s\n", k + 1,
                db::RunStatusName(a.status), a.infra_cause.empty() ? "" : " ",
                a.infra_cause.c_str(), a.board_id ? std::to_string(*a.board_id).c_str() : "-",
                db::IsBoardDeath(a.infra_cause) ? " (board death)" : "",
                a.respawned ? ", board respawned" : "", ", retried", a.reason.c_str());
  }
  if (!attempts->empty()) {
    std::printf("attempt %zu: this run (the row above)\n", attempts->size() + 1);
  }
  if (r.replay_of) std::printf("replay of run %" PRId64 "\n", *r.replay_of);
  if (config.is_object() && config.contains("twin_of") && !config["twin_of"].is_null()) {
    std::printf("twin of index %s (determinism pair)\n", config["twin_of"].dump().c_str());
  }
  if (config.is_object() && config.contains("axes")) {
    std::printf("axes:   ");
    for (const auto& [k, v] : config["axes"].items()) {
      std::printf(" %s=%s", k.c_str(), v.is_string() ? v.get<std::string>().c_str() : v.dump().c_str());
    }
    std::printf("\n");
  }
  std::printf("config:  %s\n", r.config_json.c_str());
  std::printf("image:   %s sha256 %s\n", r.image_name.c_str(),
              r.image_sha256.empty() ? "-" : r.image_sha256.c_str());
  if (*pins) {
    std::printf("elf:     %s %s sha256 %s%s\n", (*pins)->workload.c_str(),
                (*pins)->workload_path.c_str(), (*pins)->workload_sha256.c_str(),
                (*pins)->generator_version.empty()
                    ? ""
                    : (" (generator " + (*pins)->generator_version + ")").c_str());
    std::printf("tool:    %s\n", (*pins)->tool_version.c_str());
  } else {
    std::printf("elf:     - (no content pins stored for this run)\n");
  }
  std::printf("board:   %s\n", r.board_id ? std::to_string(*r.board_id).c_str() : "-");
  std::printf("clocks:  fabric requested %s, programmed %s, read back %s Hz\n",
              Hz(r.fabric.requested_hz).c_str(), Hz(r.fabric.programmed_hz).c_str(),
              Hz(r.fabric.read_back_hz).c_str());
  std::printf("         sink   requested %s, programmed %s, read back %s Hz\n",
              Hz(r.sink.requested_hz).c_str(), Hz(r.sink.programmed_hz).c_str(),
              Hz(r.sink.read_back_hz).c_str());
  std::printf("stream:  %s bytes, sha256 %s%s\n", Hz(r.stream_size).c_str(),
              r.stream_sha256.empty() ? "-" : r.stream_sha256.c_str(),
              bytes_kept ? " (bytes stored)" : " (digest only)");
  std::printf("started: %s, %s ms\n", r.started_at.c_str(),
              r.wall_ms ? std::to_string(*r.wall_ms).c_str() : "-");
  std::printf("verdicts:\n");
  for (const db::VerdictRecord& v : *verdicts) {
    std::string ev = v.evidence;
    for (size_t p = 0; (p = ev.find('\n', p)) != std::string::npos; p += 2) ev.replace(p, 1, "\n      ");
    std::printf("  %-27s %-5s %s\n", v.verdict.c_str(), db::OutcomeName(v.outcome), ev.c_str());
  }
  if (verdicts->empty()) std::printf("  (none: the run was not judged)\n");
  std::printf("replay:  %s\n", replay.c_str());
  if (bisections.ok() && !bisections->empty()) {
    std::printf("triage:\n");
    for (const db::BisectionRecord& b : *bisections) {
      std::printf("%s", reports::FormatBisection(b).c_str());
    }
  }
  return kExitOk;
}

}  // namespace

Command ShowCommand() {
  return Command{
    "show", "Show one stored run: config, clocks, image, verdicts with evidence, replay command",
    [](CLI::App& sub) -> std::function<int()> {
      auto f = std::make_shared<ShowFlags>();
      sub.add_option("run", f->run_id, "run id (runs.id)")->required();
      sub.add_option("--db", f->db_path, "database file (default out/ctte.db)");
      sub.add_flag("--json", f->json, "print JSON");
      return [f] { return RunShow(*f); };
    }};
}

}  // namespace ctte::cli
