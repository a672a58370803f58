// Shared helpers for the db tests: a fresh database file per test and small record builders.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>

#include "db/database.h"

namespace ctte::db::testing {

/// A path under the test temp dir: "ctte_db_SUITE_TEST" + `tail`, with no database file (nor
/// its -wal, -shm) left from before.
inline std::string FreshTestPath(const std::string& tail) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string path = ::testing::TempDir() + "ctte_db_" + info->test_suite_name() + "_" +
                           info->name() + tail;
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
  return path;
}

/// The test's database: a fresh path unique per test.
inline std::string FreshDbPath() { return FreshTestPath(".db"); }

/// One of the test's databases, `name` ("a.db", "out.db"): a fresh path unique per test and name.
inline std::string FreshDbPath(const std::string& name) { return FreshTestPath("_" + name); }

inline std::unique_ptr<Database> OpenOrDie(const std::string& path) {
  auto db = Database::Open(path);
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  return db.ok() ? std::move(*db) : nullptr;
}

inline CampaignRecord Campaign(const std::string& name, uint64_t seed) {
  return {name, "test campaign " + name, seed,
          "{\"name\":\"" + name + "\",\"seed\":" + std::to_string(seed) + "}",
          "2026-01-01T00:00:00Z"};
}

/// A finished run whose config has the given axis values.
inline RunRecord MakeRun(int64_t campaign_id, uint64_t index, RunStatus status,
                     const std::string& workload, const std::string& mode) {
  RunRecord r;
  r.campaign_id = campaign_id;
  r.index = index;
  r.seed = 0x1000 + index;
  r.config_json = "{\"axes\":{\"workload\":\"" + workload + "\",\"mode\":\"" + mode + "\"}}";
  r.status = status;
  r.image_name = "ntrace-slim";
  r.image_sha256 = std::string(64, 'a');
  r.fabric = {100'000'000, 100'000'000, 100'000'000};
  r.sink = {50'000'000, 50'000'000, 49'999'000};
  r.started_at = "2026-01-01T00:00:0" + std::to_string(index % 10) + "Z";
  r.wall_ms = 1234;
  r.stream_sha256 = std::string(64, 'b');
  r.stream_size = 4096;
  r.counters_json = "{\"messages\":10}";
  r.metrics_json = "{\"bits_per_insn\":1.5}";
  return r;
}

}  // namespace ctte::db::testing
