// A small campaign written through the db API for the report tests: green, red, invalid, infra
// runs, a determinism twin and a replay, with metrics and evidence that need escaping, on two
// boards, with a retried infra run and a run that went green after its board died.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "db/database.h"
#include "reports/report_model.h"

namespace ctte::reports::testing {

inline std::string FreshPath(const std::string& suffix) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string path = ::testing::TempDir() + "ctte_reports_" + info->test_suite_name() +
                           "_" + info->name() + suffix;
  for (const char* s : {"", "-wal", "-shm"}) std::filesystem::remove(path + s);
  return path;
}

inline const std::vector<std::string>& EightVerdicts() {
  static const std::vector<std::string> v = {
      "decode_integrity", "loss_accounting",   "post_recovery_losslessness",
      "counter_consistency", "liveness",      "determinism",
      "window_semantics",    "flush_completeness"};
  return v;
}

inline std::string Config(uint64_t index, const std::string& regime, const std::string& bp_axis,
                          const std::string& bp_kind, int ready, const std::string& workload,
                          const std::string& mode, const std::string& twin_of = "null") {
  return "{\"campaign\":\"fixture\",\"index\":" + std::to_string(index) +
         ",\"twin_of\":" + twin_of + ",\"image\":\"ntrace-slim\",\"axes\":{\"overflow_regime\":\"" +
         regime + "\",\"backpressure\":\"" + bp_axis + "\",\"mode\":\"" + mode +
         "\",\"workload\":\"" + workload + "\"},\"backpressure\":{\"kind\":\"" + bp_kind +
         "\",\"ready_percent\":" + std::to_string(ready) + "}}";
}

inline std::vector<db::VerdictRecord> Verdicts(const std::vector<std::string>& failed,
                                               const std::string& evidence) {
  std::vector<db::VerdictRecord> out;
  for (const std::string& name : EightVerdicts()) {
    db::VerdictRecord v;
    v.verdict = name;
    v.outcome = name == "determinism" ? db::Outcome::kNotApplicable : db::Outcome::kPass;
    v.evidence = name + " checked";
    for (const std::string& f : failed) {
      if (f == name) {
        v.outcome = db::Outcome::kFail;
        v.evidence = evidence;
      }
    }
    out.push_back(v);
  }
  return out;
}

/// Writes the fixture campaign into a new database at `path`; returns the campaign id.
inline int64_t WriteFixture(const std::string& path) {
  auto opened = db::Database::Open(path);
  EXPECT_TRUE(opened.ok()) << opened.status().ToString();
  db::Database& d = **opened;
  db::CampaignRecord c{"fixture", "report fixture: every status once", 0x5eed,
                       "{\"name\":\"fixture\",\"seed\":\"0x5eed\",\"runs\":6}",
                       "2026-01-02T03:04:05Z"};
  auto cid = d.UpsertCampaign(c);
  EXPECT_TRUE(cid.ok());
  const int64_t board_a = *d.UpsertBoard({"remote:sim", "sim-a", ""});
  const int64_t board_b = *d.UpsertBoard({"remote:sim", "sim-b", ""});
  const auto run = [&](uint64_t index, db::RunStatus status, const std::string& config,
                       const std::string& metrics, int64_t wall_ms) {
    db::RunRecord r;
    r.campaign_id = *cid;
    r.index = index;
    r.seed = 0xabc000 + index;
    r.config_json = config;
    r.status = status;
    r.image_name = "ntrace-slim";
    r.image_sha256 = std::string(64, '5');
    r.fabric = {100'000'000, 100'000'000, 100'000'000};
    r.sink = {50'000'000, 50'000'000, 50'000'000};
    r.started_at = "2026-01-02T03:0" + std::to_string(index) + ":00Z";
    r.wall_ms = wall_ms;
    if (status != db::RunStatus::kInfra) {
      r.stream_sha256 = std::string(63, 'c') + std::to_string(index);
      r.stream_size = 1000 + index;
    }
    r.metrics_json = metrics;
    r.board_id = index % 2 == 0 ? board_a : board_b;
    return r;
  };
  const std::string green_metrics =
      "{\"reference_instructions\":20000,\"announced_lost_instructions\":0,"
      "\"silent_lost_instructions\":0,\"wire_bits_per_instruction\":1.25,"
      "\"payload_bits_per_instruction\":0.9375,\"messages_per_kilo_instruction\":100.5,"
      "\"reference_encoder\":{\"wire_bits_per_instruction\":1.25},"
      "\"output_rate\":{\"peak_to_mean\":1.5},\"episodes\":[]}";
  const std::string lossy_metrics =
      "{\"reference_instructions\":20000,\"announced_lost_instructions\":5000,"
      "\"silent_lost_instructions\":0,\"wire_bits_per_instruction\":0.8,"
      "\"payload_bits_per_instruction\":0.6,\"episodes\":["
      "{\"recovered\":true,\"recovery_bytes\":12},{\"recovered\":true,\"recovery_bytes\":40},"
      "{\"recovered\":false,\"recovery_bytes\":0}],\"loss_coverage\":{\"drops\":2,"
      "\"return_stack\":1,\"hist\":2,\"held_repeat\":0,\"seq_jump_setter\":0}}";
  std::vector<std::pair<db::RunRecord, std::vector<db::VerdictRecord>>> rows;
  rows.push_back({run(0, db::RunStatus::kGreen,
                      Config(0, "none", "none", "none", 100, "loop", "htm"), green_metrics, 1500),
                  Verdicts({}, "")});
  rows.push_back({run(1, db::RunStatus::kRed,
                      Config(1, "saturating", "uniform:50", "uniform", 50, "sort", "btm"),
                      lossy_metrics, 2500),
                  Verdicts({"loss_accounting"},
                           "index 4121: decoded 0x80000104, reference 0x80000100 <main+0x44> & "
                           "\"quoted\", with comma\nsecond line")});
  rows.push_back({run(2, db::RunStatus::kInvalid,
                      Config(2, "sparse", "bursty:4-64", "bursty", 100, "calls", "htm"),
                      "{\"status_reason\":\"capture ring wrapped: 2000000 bytes received, ring "
                      "holds 1048576\",\"reference_instructions\":20000}",
                      900),
                  Verdicts({}, "")});
  rows.push_back({run(3, db::RunStatus::kInfra,
                      Config(3, "none", "none", "none", 100, "calls", "btm"),
                      "{\"status_reason\":\"board died: signal 9 (SIGKILL)\"}", 100),
                  {}});
  rows.push_back({run(4, db::RunStatus::kGreen,
                      Config(4, "none", "none", "none", 100, "calls", "btm", "3"), green_metrics,
                      1400),
                  Verdicts({}, "")});
  rows.push_back({run(5, db::RunStatus::kRed,
                      Config(5, "saturating", "bursty:4-64", "bursty", 100, "loop", "htm"),
                      lossy_metrics, 2600),
                  Verdicts({"post_recovery_losslessness", "flush_completeness"},
                           "after Error at byte 77: next message is not an anchor")});
  // Infrastructure: run 3 timed out on board a, was retried on board b and died there; run 4
  // (its twin) died on board a and went green on board b after a respawn.
  rows[3].first.infra_cause = "board_died";
  std::vector<std::vector<db::AttemptRecord>> attempts(rows.size());
  attempts[3] = {{board_a, db::RunStatus::kInfra, "board_timeout", "board timed out after 30 s",
                  true, "2026-01-02T03:02:30Z", 30000}};
  attempts[4] = {{board_a, db::RunStatus::kInfra, "board_died",
                  "board died: signal 9 (SIGKILL)", true, "2026-01-02T03:03:30Z", 700}};
  std::vector<int64_t> ids;
  for (size_t k = 0; k < rows.size(); ++k) {
    auto& [r, v] = rows[k];
    auto id = d.RecordRun(r, v, nullptr, attempts[k]);
    EXPECT_TRUE(id.ok()) << id.status().ToString();
    ids.push_back(*id);
  }
  db::RunRecord replay = rows[0].first;
  replay.replay_of = ids[0];
  replay.started_at = "2026-01-02T04:00:00Z";
  EXPECT_TRUE(d.RecordRun(replay, rows[0].second).ok());
  return *cid;
}

/// Compares `actual` with tests/reports/golden/<name>; CTTE_UPDATE_GOLDEN=1 rewrites the file.
/// The report model of a freshly written fixture database (campaign "fixture").
inline ReportModel FixtureModel() {
  const std::string path = FreshPath(".db");
  WriteFixture(path);
  auto d = db::Database::Open(path);
  EXPECT_TRUE(d.ok());
  auto m = BuildReportModel(**d, "fixture", ReportOptions{.db_path = "out/ctte.db", .docs_dir = ""});
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return *m;
}

/// How often `needle` occurs in `haystack` (non-overlapping).
inline size_t CountOf(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t p = 0; (p = haystack.find(needle, p)) != std::string::npos; p += needle.size()) ++n;
  return n;
}

inline void ExpectGolden(const std::string& name, const std::string& actual) {
  const std::string path = std::string(CTTE_SOURCE_DIR) + "/tests/reports/golden/" + name;
  const char* update = std::getenv("CTTE_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << "missing golden file " << path << " (run with CTTE_UPDATE_GOLDEN=1)";
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), actual) << "differs from " << path
                              << " (if intended, regenerate with CTTE_UPDATE_GOLDEN=1)";
}

}  // namespace ctte::reports::testing
