// Database bytes per run (docs/soak.md#storage): how much one run adds to a lab database, and
// what it would add with the bounded metrics of runner/outcome.h.
//
// Usage: db_bytes IN.db [--bound OUT.db]
//
// Prints the file size after VACUUM (of a copy: IN.db is only read), the run rows, and per run the
// bytes of its row, its verdict rows, its stream and its attempt rows (the sum of the stored
// values' lengths): mean, median, p90 and max, and the share of metrics_json. With --bound, first
// writes OUT.db: a copy of IN.db whose every runs.metrics_json is rewritten by
// runner::BoundMetricsJson (the text StoredRunRecord writes for the same run), then measures
// OUT.db the same way. A bench tool: it reads the file with SQLite directly.
#include <sqlite3.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "runner/outcome.h"

namespace {

[[noreturn]] void Die(sqlite3* db, const std::string& what) {
  std::fprintf(stderr, "db_bytes: %s: %s\n", what.c_str(), db ? sqlite3_errmsg(db) : "?");
  std::exit(3);
}

void Exec(sqlite3* db, const std::string& sql) {
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) Die(db, sql);
}

sqlite3* OpenFile(const std::string& path, int flags) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) Die(db, path);
  return db;
}

// A compacted copy of `src` at `out`: the online backup, then VACUUM. (Not VACUUM INTO: SQLite
// 3.40 refuses it on a table with a virtual generated column, runs.is_control.)
void CompactCopy(sqlite3* src, const std::string& out) {
  sqlite3* dst = OpenFile(out, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  sqlite3_backup* b = sqlite3_backup_init(dst, "main", src, "main");
  if (b == nullptr || sqlite3_backup_step(b, -1) != SQLITE_DONE) Die(dst, "backup to " + out);
  sqlite3_backup_finish(b);
  Exec(dst, "VACUUM");
  sqlite3_close(dst);
}

// "SELECT per-run bytes": the run row's values, its verdicts, stream and attempts.
constexpr const char* kPerRun =
    "SELECT r.id, "
    "IFNULL(length(r.config_json),0) + IFNULL(length(r.counters_json),0) + "
    "IFNULL(length(r.metrics_json),0) + IFNULL(length(r.seed),0) + IFNULL(length(r.status),0) + "
    "IFNULL(length(r.image_name),0) + IFNULL(length(r.image_sha256),0) + "
    "IFNULL(length(r.started_at),0) + IFNULL(length(r.stream_sha256),0) + 8 * 12, "
    "IFNULL(length(r.metrics_json),0), "
    "(SELECT IFNULL(SUM(length(verdict) + length(outcome) + length(evidence) + "
    "IFNULL(length(metrics_json),0) + 16), 0) FROM verdicts v WHERE v.run_id = r.id), "
    "(SELECT IFNULL(SUM(length(bytes)), 0) FROM streams s WHERE s.run_id = r.id), "
    "(SELECT IFNULL(SUM(length(reason) + IFNULL(length(infra_cause),0) + "
    "IFNULL(length(started_at),0) + 40), 0) FROM run_attempts a WHERE a.run_id = r.id) "
    "FROM runs r WHERE r.status <> 'planned' ORDER BY r.id";

void Measure(const std::string& path) {
  const std::string compact = path + ".vacuum";
  std::filesystem::remove(compact);
  sqlite3* db = OpenFile(path, SQLITE_OPEN_READONLY);
  CompactCopy(db, compact);
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db, kPerRun, -1, &s, nullptr) != SQLITE_OK) Die(db, "prepare");
  std::vector<uint64_t> totals;
  uint64_t metrics = 0, all = 0, metrics_max = 0;
  while (sqlite3_step(s) == SQLITE_ROW) {
    uint64_t t = 0;
    for (int c = 1; c <= 5; ++c) t += c == 2 ? 0 : static_cast<uint64_t>(sqlite3_column_int64(s, c));
    const auto m = static_cast<uint64_t>(sqlite3_column_int64(s, 2));
    metrics += m;
    metrics_max = std::max(metrics_max, m);
    all += t;
    totals.push_back(t);
  }
  sqlite3_finalize(s);
  sqlite3_close(db);
  const uint64_t file = std::filesystem::file_size(compact);
  std::filesystem::remove(compact);
  if (totals.empty()) {
    std::printf("%s: no finished runs\n", path.c_str());
    return;
  }
  std::vector<uint64_t> sorted = totals;
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size();
  std::printf("%s: %zu finished runs; file %" PRIu64 " bytes after VACUUM = %.0f bytes/run\n",
              path.c_str(), n, file, static_cast<double>(file) / static_cast<double>(n));
  std::printf("  stored bytes per run: mean %.0f, median %" PRIu64 ", p90 %" PRIu64
              ", max %" PRIu64 "\n",
              static_cast<double>(all) / static_cast<double>(n), sorted[n / 2],
              sorted[n * 9 / 10], sorted.back());
  std::printf("  metrics_json: %.1f %% of stored bytes, mean %.0f, max %" PRIu64 " bytes\n",
              100.0 * static_cast<double>(metrics) / static_cast<double>(all),
              static_cast<double>(metrics) / static_cast<double>(n), metrics_max);
}

void Bound(const std::string& in, const std::string& out) {
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(out + suffix);
  sqlite3* src = OpenFile(in, SQLITE_OPEN_READONLY);
  CompactCopy(src, out);
  sqlite3_close(src);
  sqlite3* db = OpenFile(out, SQLITE_OPEN_READWRITE);
  Exec(db, "BEGIN");
  sqlite3_stmt* sel = nullptr;
  sqlite3_stmt* up = nullptr;
  if (sqlite3_prepare_v2(db, "SELECT id, metrics_json FROM runs WHERE metrics_json IS NOT NULL",
                         -1, &sel, nullptr) != SQLITE_OK ||
      sqlite3_prepare_v2(db, "UPDATE runs SET metrics_json = ?1 WHERE id = ?2", -1, &up,
                         nullptr) != SQLITE_OK) {
    Die(db, "prepare");
  }
  uint64_t changed = 0;
  while (sqlite3_step(sel) == SQLITE_ROW) {
    const std::string text(reinterpret_cast<const char*>(sqlite3_column_text(sel, 1)),
                           static_cast<size_t>(sqlite3_column_bytes(sel, 1)));
    auto bounded = ctte::runner::BoundMetricsJson(text);
    if (!bounded.ok()) {
      std::fprintf(stderr, "db_bytes: run %lld: %s\n", static_cast<long long>(sqlite3_column_int64(sel, 0)),
                   bounded.status().ToString().c_str());
      std::exit(3);
    }
    if (*bounded == text) continue;
    sqlite3_bind_text(up, 1, bounded->data(), static_cast<int>(bounded->size()), SQLITE_TRANSIENT);
    sqlite3_bind_int64(up, 2, sqlite3_column_int64(sel, 0));
    if (sqlite3_step(up) != SQLITE_DONE) Die(db, "update");
    sqlite3_reset(up);
    ++changed;
  }
  sqlite3_finalize(sel);
  sqlite3_finalize(up);
  Exec(db, "COMMIT");
  Exec(db, "VACUUM");
  sqlite3_close(db);
  std::printf("%s: %" PRIu64 " metrics_json rewritten to the bounded form\n", out.c_str(), changed);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 && !(argc == 4 && std::strcmp(argv[2], "--bound") == 0)) {
    std::fprintf(stderr, "usage: db_bytes IN.db [--bound OUT.db]\n");
    return 2;
  }
  Measure(argv[1]);
  if (argc == 4) {
    Bound(argv[1], argv[3]);
    Measure(argv[3]);
  }
  return 0;
}
