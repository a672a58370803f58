// History queries over the lab database: typed results, no raw rows.
#include <algorithm>
#include <cctype>

#include "base/text.h"
#include "db/database.h"
#include "db/run_columns.h"
#include "db/schema.h"
#include "db/statement.h"

namespace ctte::db {

using internal::Statement;

namespace {

// Whether run `r` is a control run (config_json "control", runner/controls.h): the indexed
// virtual column runs.is_control where the file has it (migration "history at scale",
// schema.h), else the same test on the JSON.
std::string IsControl(bool has_counts, const char* r = "r") {
  return has_counts ? std::string(r) + ".is_control = 1"
                    : "json_extract(" + std::string(r) + ".config_json, '$.control') IS NOT NULL";
}
std::string NotControl(bool has_counts, const char* r = "r") {
  return has_counts ? std::string(r) + ".is_control = 0"
                    : "json_extract(" + std::string(r) + ".config_json, '$.control') IS NULL";
}

// The one definition of a judged run (database.h): an original run that went green or red. An
// expression over `runs r`, used by every query that counts verdicts or fills RunRow::judged
// (and by the verdict_counts triggers of schema.cc, which say the same in SQL).
// A campaign's control runs are judged as controls, never counted with its draws.
std::string JudgedRun(bool has_counts) {
  return "(r.replay_of IS NULL AND r.status IN ('green', 'red') AND " + NotControl(has_counts) +
         ")";
}

std::optional<uint64_t> ParseSeedColumn(const std::string& text) {
  Result<uint64_t> v = ParseHex64(text, "seed");
  if (!v.ok()) return std::nullopt;
  return *v;
}

constexpr const char* kFromRuns = " FROM runs r JOIN campaigns c ON c.id = r.campaign_id ";

// Result columns: r.id, c.name, the run columns (run_columns.h) from 2, judged, attempts.
Result<RunRow> ReadRun(const Statement& s) {
  RunRow row;
  row.id = s.Int(0);
  row.campaign_name = s.Text(1);
  CTTE_RETURN_IF_ERROR(internal::ReadRunColumns(s, 2, row.id, &row.run));
  row.judged = s.Int(2 + internal::kRunColumnCount) != 0;
  row.earlier_attempts = s.U64(3 + internal::kRunColumnCount);
  return row;
}

bool IsFactorName(const std::string& f) {
  return !f.empty() && f.size() <= 64 && std::all_of(f.begin(), f.end(), [](char c) {
    return std::islower(static_cast<unsigned char>(c)) ||
           std::isdigit(static_cast<unsigned char>(c)) || c == '_';
  });
}

}  // namespace

Result<std::vector<RunRow>> Database::SelectRuns(const std::string& where_sql,
                                                 const std::string& arg, int64_t int_arg) const {
  // Schema 2 adds the cause of an infra run and its earlier attempts; a schema-1 file (read-only
  // open of an older file) reads them as absent.
  const std::string sql =
      "SELECT r.id, c.name, " + internal::RunColumnList(schema_version_, "r.", true) + ", " +
      JudgedRun(Has(HistoryCountsSchemaVersion())) +
      (Has(2) ? ", (SELECT COUNT(*) FROM run_attempts a WHERE a.run_id = r.id)" : ", 0") +
      kFromRuns + where_sql + " ORDER BY r.campaign_id, r.idx, r.id";
  Statement s(db_, sql.c_str());
  s.Bind(1, arg);
  s.Bind(2, int_arg);
  std::vector<RunRow> out;
  CTTE_RETURN_IF_ERROR(s.ForEachRow([&]() -> Status {
    auto row = ReadRun(s);
    if (!row.ok()) return row.status();
    out.push_back(std::move(*row));
    return Status::Ok();
  }));
  return out;
}

Result<CampaignSummary> Database::CampaignByIdOrName(const std::string& which) const {
  const bool numeric = !which.empty() && which.size() <= 18 &&
                       std::all_of(which.begin(), which.end(), [](char c) { return c >= '0' && c <= '9'; });
  const std::string name = which.rfind("name:", 0) == 0 ? which.substr(5) : which;
  if (name.empty()) return Status::InvalidArgument("campaign: an id or a name is needed");
  auto rows = Campaigns(numeric ? "" : name);
  if (!rows.ok()) return rows.status();
  const CampaignSummary* found = nullptr;
  for (const CampaignSummary& c : *rows) {
    if (!numeric || std::to_string(c.id) == which) found = &c;  // by name: the newest row
  }
  if (found == nullptr) {
    return Status::NotFound(numeric ? "no campaign with id " + which + " (a campaign named " +
                                          which + " is name:" + which + ")"
                                    : "no campaign named '" + name + "'");
  }
  return *found;
}

Result<std::vector<CampaignSummary>> Database::Campaigns(const std::string& name) const {
  // Retried runs and infra attempts count original runs only (a replay repeats a counted run);
  // they come from run_attempts grouped by campaign once, not from a probe per run. The status
  // counts read the covering index runs_history where the file has it.
  const bool counts = Has(HistoryCountsSchemaVersion());
  const std::string attempts =
      Has(2) ? "LEFT JOIN (SELECT r.campaign_id AS cid, COUNT(DISTINCT a.run_id) AS retried, "
               "COUNT(CASE WHEN a.status = 'infra' THEN 1 END) AS infra FROM run_attempts a "
               "CROSS JOIN runs r ON r.id = a.run_id WHERE r.replay_of IS NULL AND " +
                   NotControl(counts) + " GROUP BY r.campaign_id) t ON t.cid = c.id "
             : "LEFT JOIN (SELECT 0 AS cid, 0 AS retried, 0 AS infra) t ON t.cid = c.id ";
  const std::string sql =
      "SELECT c.id, c.name, c.description, c.seed, c.spec_sha256, c.created_at, "
      "COUNT(CASE WHEN r.status = 'planned' THEN 1 END), "
      "COUNT(CASE WHEN r.status = 'green' THEN 1 END), "
      "COUNT(CASE WHEN r.status = 'red' THEN 1 END), "
      "COUNT(CASE WHEN r.status = 'invalid' THEN 1 END), "
      "COUNT(CASE WHEN r.status = 'infra' THEN 1 END), IFNULL(MAX(t.retried), 0), "
      "COUNT(CASE WHEN r.replay_of IS NULL AND r.status = 'infra' THEN 1 END) + "
      "IFNULL(MAX(t.infra), 0) "
      "FROM campaigns c LEFT JOIN runs r ON r.campaign_id = c.id AND " +
      NotControl(counts) + " " + attempts +
      "WHERE (?1 = '' OR c.name = ?1) GROUP BY c.id ORDER BY c.id";
  Statement s(db_, sql.c_str());
  s.Bind(1, name);
  std::vector<CampaignSummary> out;
  CTTE_RETURN_IF_ERROR(s.ForEachRow([&]() -> Status {
    CampaignSummary c;
    c.id = s.Int(0);
    c.name = s.Text(1);
    c.description = s.Text(2);
    auto seed = ParseSeedColumn(s.Text(3));
    if (!seed) return Status::Corruption("campaigns.id " + std::to_string(c.id) + ": bad seed");
    c.seed = *seed;
    c.spec_sha256 = s.Text(4);
    c.created_at = s.Text(5);
    c.planned = s.U64(6);
    c.green = s.U64(7);
    c.red = s.U64(8);
    c.invalid = s.U64(9);
    c.infra = s.U64(10);
    c.retried = s.U64(11);
    c.infra_attempts = s.U64(12);
    out.push_back(std::move(c));
    return Status::Ok();
  }));
  return out;
}

Result<std::vector<RunRow>> Database::RunsOfCampaign(int64_t campaign_id) const {
  return SelectRuns("WHERE ?1 = ?1 AND r.campaign_id = ?2", "", campaign_id);
}

Result<std::vector<RunRow>> Database::ControlRunsOfCampaign(int64_t campaign_id) const {
  return SelectRuns("WHERE ?1 = ?1 AND r.campaign_id = ?2 AND r.replay_of IS NULL AND " +
                        IsControl(Has(HistoryCountsSchemaVersion())),
                    "", campaign_id);
}

Result<RunRow> Database::RunById(int64_t run_id) const {
  auto rows = SelectRuns("WHERE ?1 = ?1 AND r.id = ?2", "", run_id);
  if (!rows.ok()) return rows.status();
  if (rows->empty()) return Status::NotFound("no run with id " + std::to_string(run_id));
  return std::move(rows->front());
}

Result<std::vector<RunRow>> Database::RedRuns(const std::string& campaign_name) const {
  return SelectRuns("WHERE r.status = 'red' AND (?1 = '' OR c.name = ?1) AND ?2 = ?2 AND " +
                        NotControl(Has(HistoryCountsSchemaVersion())),
                    campaign_name, 0);
}

Result<std::vector<OutcomeCount>> Database::OutcomeCounts(const std::string& campaign_name) const {
  // verdict_counts (kept by triggers) where the file has it: a few rows per campaign.
  const std::string sql =
      Has(HistoryCountsSchemaVersion())
          ? "SELECT v.verdict, SUM(CASE WHEN v.outcome = 'pass' THEN v.runs ELSE 0 END), "
            "SUM(CASE WHEN v.outcome = 'fail' THEN v.runs ELSE 0 END), "
            "SUM(CASE WHEN v.outcome = 'n/a' THEN v.runs ELSE 0 END) "
            "FROM campaigns c JOIN verdict_counts v ON v.campaign_id = c.id "
            "WHERE (?1 = '' OR c.name = ?1) GROUP BY v.verdict HAVING SUM(v.runs) > 0 "
            "ORDER BY v.verdict"
          : "SELECT v.verdict, COUNT(CASE WHEN v.outcome = 'pass' THEN 1 END), "
            "COUNT(CASE WHEN v.outcome = 'fail' THEN 1 END), "
            "COUNT(CASE WHEN v.outcome = 'n/a' THEN 1 END) "
            // CROSS JOIN keeps runs outside: the judged test (a json_extract) runs once
            // per run, not once per verdict row.
            "FROM campaigns c CROSS JOIN runs r ON c.id = r.campaign_id "
            "CROSS JOIN verdicts v ON v.run_id = r.id "
            "WHERE (?1 = '' OR c.name = ?1) AND " +
                JudgedRun(false) + " GROUP BY v.verdict ORDER BY v.verdict";
  Statement s(db_, sql.c_str());
  s.Bind(1, campaign_name);
  std::vector<OutcomeCount> out;
  CTTE_RETURN_IF_ERROR(s.ForEachRow([&] {
    out.push_back({s.Text(0), s.U64(1), s.U64(2), s.U64(3)});
  }));
  return out;
}

Result<std::vector<FactorRate>> Database::FailRateByFactor(const std::string& factor,
                                                           const std::string& campaign_name) const {
  if (!IsFactorName(factor)) {
    return Status::InvalidArgument("bad factor name \"" + factor + "\" (a-z 0-9 _)");
  }
  // Replays are repeats of a run already counted, so only original runs are grouped.
  Statement s(db_,
              Has(HistoryCountsSchemaVersion())
                  ? "SELECT a.value, SUM(a.runs), "
                    "SUM(CASE WHEN a.status = 'green' THEN a.runs ELSE 0 END), "
                    "SUM(CASE WHEN a.status = 'red' THEN a.runs ELSE 0 END) "
                    "FROM campaigns c JOIN axis_counts a ON a.campaign_id = c.id "
                    "WHERE (?1 = '' OR c.name = ?1) AND a.factor = ?2 "
                    "GROUP BY a.value HAVING SUM(a.runs) > 0 ORDER BY a.value"
                  : "SELECT CAST(json_extract(r.config_json, '$.axes.' || ?2) AS TEXT) AS value, "
                    "COUNT(*), COUNT(CASE WHEN r.status = 'green' THEN 1 END), "
                    "COUNT(CASE WHEN r.status = 'red' THEN 1 END) "
                    "FROM runs r JOIN campaigns c ON c.id = r.campaign_id "
                    "WHERE (?1 = '' OR c.name = ?1) AND r.replay_of IS NULL AND value IS NOT NULL "
                    "AND json_extract(r.config_json, '$.control') IS NULL "
                    "GROUP BY value ORDER BY value");
  s.Bind(1, campaign_name);
  s.Bind(2, factor);
  std::vector<FactorRate> out;
  CTTE_RETURN_IF_ERROR(s.ForEachRow([&] {
    FactorRate f;
    f.factor = factor;
    f.value = s.Text(0);
    f.runs = s.U64(1);
    f.green = s.U64(2);
    f.red = s.U64(3);
    out.push_back(std::move(f));
  }));
  return out;
}

Result<std::vector<FactorRate>> Database::FailRatesByFactor(
    const std::string& campaign_name) const {
  // axis_counts (kept by triggers) where the file has it; else one pass: json_each lists a
  // run's axes, so each config is parsed once for all factors.
  Statement s(db_,
              Has(HistoryCountsSchemaVersion())
                  ? "SELECT a.factor, a.value, SUM(a.runs), "
                    "SUM(CASE WHEN a.status = 'green' THEN a.runs ELSE 0 END), "
                    "SUM(CASE WHEN a.status = 'red' THEN a.runs ELSE 0 END) "
                    "FROM campaigns c JOIN axis_counts a ON a.campaign_id = c.id "
                    "WHERE (?1 = '' OR c.name = ?1) GROUP BY a.factor, a.value "
                    "HAVING SUM(a.runs) > 0 ORDER BY a.factor, a.value"
                  : "SELECT a.key, CAST(a.value AS TEXT) AS value, "
                    "COUNT(*), COUNT(CASE WHEN r.status = 'green' THEN 1 END), "
                    "COUNT(CASE WHEN r.status = 'red' THEN 1 END) "
                    "FROM campaigns c CROSS JOIN runs r ON c.id = r.campaign_id, "
                    "json_each(r.config_json, '$.axes') a "
                    "WHERE (?1 = '' OR c.name = ?1) AND r.replay_of IS NULL AND value IS NOT NULL "
                    "AND json_extract(r.config_json, '$.control') IS NULL "
                    "GROUP BY a.key, value ORDER BY a.key, value");
  s.Bind(1, campaign_name);
  std::vector<FactorRate> out;
  CTTE_RETURN_IF_ERROR(s.ForEachRow([&] {
    FactorRate f;
    f.factor = s.Text(0);
    if (!IsFactorName(f.factor)) return;
    f.value = s.Text(1);
    f.runs = s.U64(2);
    f.green = s.U64(3);
    f.red = s.U64(4);
    out.push_back(std::move(f));
  }));
  return out;
}

namespace {

// Columns: verdict, outcome, evidence, metrics_json, run_id.
Result<VerdictRecord> ReadVerdict(const Statement& s) {
  VerdictRecord v;
  v.verdict = s.Text(0);
  const std::optional<Outcome> outcome = ParseOutcome(s.Text(1));
  if (!outcome) {
    return Status::Corruption("verdicts of run " + std::to_string(s.Int(4)) + ": bad outcome");
  }
  v.outcome = *outcome;
  v.evidence = s.Text(2);
  v.metrics_json = s.Text(3);
  return v;
}

}  // namespace

Result<std::map<int64_t, std::vector<VerdictRecord>>> Database::VerdictsOfCampaign(
    int64_t campaign_id) const {
  Statement s(db_,
              "SELECT v.verdict, v.outcome, v.evidence, v.metrics_json, v.run_id FROM runs r "
              "CROSS JOIN verdicts v ON v.run_id = r.id WHERE r.campaign_id = ?1 "
              "ORDER BY v.run_id, v.id");
  s.Bind(1, campaign_id);
  std::map<int64_t, std::vector<VerdictRecord>> out;
  CTTE_RETURN_IF_ERROR(s.ForEachRow([&]() -> Status {
    Result<VerdictRecord> v = ReadVerdict(s);
    if (!v.ok()) return v.status();
    out[s.Int(4)].push_back(std::move(*v));
    return Status::Ok();
  }));
  return out;
}

Result<std::vector<VerdictRecord>> Database::VerdictsOfRun(int64_t run_id) const {
  Statement s(db_,
              "SELECT verdict, outcome, evidence, metrics_json, run_id FROM verdicts "
              "WHERE run_id = ?1 ORDER BY id");
  s.Bind(1, run_id);
  std::vector<VerdictRecord> out;
  CTTE_RETURN_IF_ERROR(s.ForEachRow([&]() -> Status {
    Result<VerdictRecord> v = ReadVerdict(s);
    if (!v.ok()) return v.status();
    out.push_back(std::move(*v));
    return Status::Ok();
  }));
  return out;
}

Result<std::vector<uint8_t>> Database::StreamOfRun(int64_t run_id) const {
  Statement s(db_, "SELECT bytes FROM streams WHERE run_id = ?1");
  s.Bind(1, run_id);
  auto row = s.Step();
  if (!row.ok()) return row.status();
  if (!*row) return Status::NotFound("no stored stream for run " + std::to_string(run_id));
  return s.Blob(0);
}

Result<std::vector<AttemptRecord>> Database::AttemptsOfRun(int64_t run_id) const {
  std::vector<AttemptRecord> out;
  if (!Has(2)) return out;
  Statement s(db_,
              "SELECT board_id, status, infra_cause, reason, respawned, started_at, wall_ms "
              "FROM run_attempts WHERE run_id = ?1 ORDER BY attempt");
  s.Bind(1, run_id);
  CTTE_RETURN_IF_ERROR(s.ForEachRow([&]() -> Status {
    AttemptRecord a;
    a.board_id = s.OptInt(0);
    const std::optional<RunStatus> status = ParseRunStatus(s.Text(1));
    if (!status) {
      return Status::Corruption("attempts of run " + std::to_string(run_id) + ": bad status");
    }
    a.status = *status;
    a.infra_cause = s.Text(2);
    a.reason = s.Text(3);
    a.respawned = s.Int(4) != 0;
    a.started_at = s.Text(5);
    a.wall_ms = s.OptInt(6);
    out.push_back(std::move(a));
    return Status::Ok();
  }));
  return out;
}

Result<std::vector<BoardInfraCounts>> Database::InfraByBoard(
    const std::string& campaign_name) const {
  return SelectInfra(campaign_name, 0);
}

Result<BoardRecord> Database::BoardById(int64_t id) const {
  Statement s(db_, "SELECT kind, serial, IFNULL(info_json, '') FROM boards WHERE id = ?1");
  s.Bind(1, id);
  std::optional<BoardRecord> b;
  CTTE_RETURN_IF_ERROR(s.ForEachRow([&] { b = BoardRecord{s.Text(0), s.Text(1), s.Text(2)}; }));
  if (!b) return Status::NotFound("no board with id " + std::to_string(id));
  return *b;
}

Result<std::vector<BoardInfraCounts>> Database::InfraByBoardOfCampaign(int64_t campaign_id) const {
  return SelectInfra("", campaign_id);
}

// One row per attempt (a run's last attempt is its row; the earlier ones are run_attempts),
// summed per board. Only original, finished runs: a replay repeats a counted run.
Result<std::vector<BoardInfraCounts>> Database::SelectInfra(const std::string& campaign_name,
                                                            int64_t campaign_id) const {
  const std::string deaths = "('board_died', 'board_timeout')";  // IsBoardDeath()
  std::string sql =
      "WITH orig AS (SELECT r.id, r.board_id, r.status, " +
      std::string(Has(2) ? "r.infra_cause" : "NULL AS infra_cause") +
      // The covering index runs_history where the file has it: no run row is read.
      " FROM runs r " +
      std::string(Has(HistoryCountsSchemaVersion()) ? "INDEXED BY runs_history " : "") +
      "JOIN campaigns c ON c.id = r.campaign_id "
      "WHERE (?1 = '' OR c.name = ?1) AND (?2 = 0 OR c.id = ?2) "
      "AND r.replay_of IS NULL AND r.status <> 'planned'), "
      "attempts AS (SELECT board_id, 1 AS run, (status = 'infra') AS infra, 0 AS retry, "
      "(status = 'infra' AND infra_cause IN " +
      deaths + ") AS death, 0 AS respawn FROM orig";
  if (Has(2)) {
    sql += " UNION ALL SELECT a.board_id, 0, (a.status = 'infra'), 1, (a.status = 'infra' AND "
           "a.infra_cause IN " + deaths + "), a.respawned "
           "FROM run_attempts a JOIN orig o ON o.id = a.run_id";
  }
  sql += ") SELECT t.board_id, IFNULL(b.kind, ''), IFNULL(b.serial, ''), SUM(run), SUM(infra), "
         "SUM(retry), SUM(death), SUM(respawn) FROM attempts t "
         "LEFT JOIN boards b ON b.id = t.board_id "
         "GROUP BY t.board_id ORDER BY t.board_id IS NULL, t.board_id";
  Statement s(db_, sql.c_str());
  s.Bind(1, campaign_name);
  s.Bind(2, campaign_id);
  std::vector<BoardInfraCounts> out;
  CTTE_RETURN_IF_ERROR(s.ForEachRow([&] {
    BoardInfraCounts b;
    b.board_id = s.OptInt(0);
    b.kind = s.Text(1);
    b.serial = s.Text(2);
    b.runs = s.U64(3);
    b.infra_attempts = s.U64(4);
    b.retries = s.U64(5);
    b.deaths = s.U64(6);
    b.respawns = s.U64(7);
    out.push_back(std::move(b));
  }));
  return out;
}

}  // namespace ctte::db
