// TriageStore: bisections, legs and leg runs (see triage_store.h).
#include "db/triage_store.h"

#include <cstdio>

#include "base/text.h"
#include "db/statement.h"

namespace ctte::db {

using internal::Statement;
using internal::Transaction;

namespace {

std::string SeedText(uint64_t seed) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(seed));
  return buf;
}

std::string FormatReal(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6f", x);
  return buf;
}

}  // namespace

bool TriageStore::HasTables(const Database& db) {
  Statement s(db.db_, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'bisections'");
  auto row = s.Step();
  return row.ok() && *row;
}

Result<int64_t> TriageStore::RecordBisection(Database& db, const BisectionRecord& b) {
  CTTE_RETURN_IF_ERROR(db.Writable());
  if (!HasTables(db)) {
    return Status::InvalidArgument(db.path() + ": has no triage tables (open it for writing to "
                                   "migrate it)");
  }
  Transaction tx(db.db_);
  CTTE_RETURN_IF_ERROR(tx.status());
  Statement ins(db.db_,
                "INSERT INTO bisections (run_id, kind, created_at, repeats, verdict, culprits, "
                "summary, baseline_json, minimal_config_json, minimal_command) "
                "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)");
  ins.Bind(1, b.run_id);
  ins.Bind(2, b.kind);
  ins.Bind(3, b.created_at);
  ins.Bind(4, static_cast<int64_t>(b.repeats));
  ins.Bind(5, b.verdict);
  ins.Bind(6, b.culprits);
  ins.Bind(7, b.summary);
  ins.BindOpt(8, b.baseline_json);
  ins.BindOpt(9, b.minimal_config_json);
  ins.Bind(10, b.minimal_command);
  CTTE_RETURN_IF_ERROR(ins.Run());
  const int64_t id = sqlite3_last_insert_rowid(db.db_);
  for (const BisectionLegRecord& leg : b.legs) {
    Statement l(db.db_,
                "INSERT INTO bisection_legs (bisection_id, ordinal, kind, factors, config_json, "
                "verdict, red, judged, unsound, lo, hi) "
                "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, CAST(?10 AS REAL), CAST(?11 AS REAL))");
    l.Bind(1, id);
    l.Bind(2, static_cast<int64_t>(leg.ordinal));
    l.Bind(3, leg.kind);
    l.Bind(4, leg.factors);
    l.Bind(5, leg.config_json);
    l.Bind(6, leg.verdict);
    l.BindU64(7, leg.red);
    l.BindU64(8, leg.judged);
    l.BindU64(9, leg.unsound);
    // REAL columns: bound as decimal text, converted by CAST in the statement.
    l.Bind(10, FormatReal(leg.lo));
    l.Bind(11, FormatReal(leg.hi));
    CTTE_RETURN_IF_ERROR(l.Run());
    const int64_t leg_id = sqlite3_last_insert_rowid(db.db_);
    for (const BisectionRunRecord& r : leg.runs) {
      Statement rr(db.db_,
                   "INSERT INTO bisection_runs (leg_id, repeat, seed, status, red_verdicts, "
                   "reason, board_serial, wall_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
      rr.Bind(1, leg_id);
      rr.Bind(2, static_cast<int64_t>(r.repeat));
      rr.Bind(3, SeedText(r.seed));
      rr.Bind(4, r.status);
      rr.Bind(5, r.red_verdicts);
      rr.Bind(6, r.reason);
      rr.Bind(7, r.board_serial);
      rr.Bind(8, r.wall_ms);
      CTTE_RETURN_IF_ERROR(rr.Run());
    }
  }
  CTTE_RETURN_IF_ERROR(tx.Commit());
  return id;
}

Result<std::vector<BisectionRecord>> TriageStore::Select(const Database& db, const char* where,
                                                         int64_t arg) {
  std::vector<BisectionRecord> out;
  if (!HasTables(db)) return out;
  const std::string sql =
      std::string("SELECT b.id, b.run_id, b.kind, b.created_at, b.repeats, b.verdict, "
                  "b.culprits, b.summary, IFNULL(b.baseline_json, ''), "
                  "IFNULL(b.minimal_config_json, ''), b.minimal_command FROM bisections b "
                  "JOIN runs r ON r.id = b.run_id WHERE ") +
      where + " ORDER BY b.run_id, b.id";
  Statement s(db.db_, sql.c_str());
  s.Bind(1, arg);
  CTTE_RETURN_IF_ERROR(s.ForEachRow([&]() -> Status {
    BisectionRecord b;
    b.id = s.Int(0);
    b.run_id = s.Int(1);
    b.kind = s.Text(2);
    b.created_at = s.Text(3);
    b.repeats = static_cast<uint32_t>(s.Int(4));
    b.verdict = s.Text(5);
    b.culprits = s.Text(6);
    b.summary = s.Text(7);
    b.baseline_json = s.Text(8);
    b.minimal_config_json = s.Text(9);
    b.minimal_command = s.Text(10);
    out.push_back(std::move(b));
    return Status::Ok();
  }));
  for (BisectionRecord& b : out) {
    Statement l(db.db_,
                "SELECT id, ordinal, kind, factors, config_json, verdict, red, judged, unsound, "
                "lo, hi FROM bisection_legs WHERE bisection_id = ?1 ORDER BY ordinal");
    l.Bind(1, b.id);
    std::vector<int64_t> ids;
    CTTE_RETURN_IF_ERROR(l.ForEachRow([&]() -> Status {
      BisectionLegRecord leg;
      ids.push_back(l.Int(0));
      leg.ordinal = static_cast<uint32_t>(l.Int(1));
      leg.kind = l.Text(2);
      leg.factors = l.Text(3);
      leg.config_json = l.Text(4);
      leg.verdict = l.Text(5);
      leg.red = l.U64(6);
      leg.judged = l.U64(7);
      leg.unsound = l.U64(8);
      leg.lo = std::stod(l.Text(9));
      leg.hi = std::stod(l.Text(10));
      b.legs.push_back(std::move(leg));
      return Status::Ok();
    }));
    for (size_t i = 0; i < ids.size(); ++i) {
      Statement r(db.db_,
                  "SELECT repeat, seed, status, red_verdicts, reason, board_serial, "
                  "IFNULL(wall_ms, 0) FROM bisection_runs WHERE leg_id = ?1 ORDER BY repeat");
      r.Bind(1, ids[i]);
      CTTE_RETURN_IF_ERROR(r.ForEachRow([&]() -> Status {
        BisectionRunRecord run;
        run.repeat = static_cast<uint32_t>(r.Int(0));
        Result<uint64_t> seed = ParseHex64(r.Text(1), "seed");
        run.seed = seed.ok() ? *seed : 0;
        run.status = r.Text(2);
        run.red_verdicts = r.Text(3);
        run.reason = r.Text(4);
        run.board_serial = r.Text(5);
        run.wall_ms = r.Int(6);
        b.legs[i].runs.push_back(std::move(run));
        return Status::Ok();
      }));
    }
  }
  return out;
}

Result<std::vector<BisectionRecord>> TriageStore::BisectionsOfRun(const Database& db,
                                                                  int64_t run_id) {
  return Select(db, "b.run_id = ?1", run_id);
}

Result<std::vector<BisectionRecord>> TriageStore::BisectionsOfCampaign(const Database& db,
                                                                       int64_t campaign_id) {
  return Select(db, "r.campaign_id = ?1", campaign_id);
}

Result<std::pair<std::string, uint64_t>> TriageStore::CampaignSpec(const Database& db,
                                                                   int64_t campaign_id) {
  Statement s(db.db_, "SELECT spec_json, seed FROM campaigns WHERE id = ?1");
  s.Bind(1, campaign_id);
  auto more = s.Step();
  if (!more.ok()) return more.status();
  if (!*more) return Status::NotFound("no campaign " + std::to_string(campaign_id));
  Result<uint64_t> seed = ParseHex64(s.Text(1), "seed");
  return std::make_pair(s.Text(0), seed.ok() ? *seed : 0);
}

}  // namespace ctte::db
