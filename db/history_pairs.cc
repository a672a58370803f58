// TriageStore::PairRates and Nights (see triage_store.h): cross-term and night-over-night
// history.
#include <algorithm>
#include <array>
#include <tuple>

#include "base/wilson.h"
#include "db/schema.h"
#include "db/statement.h"
#include "db/triage_store.h"

namespace ctte::db {

using internal::Statement;

namespace {

// Judged draws (database.h's predicate, as in queries.cc): original, green or red, no control.
constexpr const char* kJudgedDraw =
    "r.replay_of IS NULL AND r.status IN ('green', 'red') AND "
    "json_extract(r.config_json, '$.control') IS NULL";

struct Tally {
  uint64_t runs = 0, red = 0;
  double rate() const { return runs ? static_cast<double>(red) / static_cast<double>(runs) : 0; }
};

}  // namespace

Result<std::vector<PairRate>> TriageStore::PairRates(const Database& db,
                                                     const std::string& campaign_name,
                                                     uint64_t min_runs, int64_t campaign_id) {
  // The factors are the image and every key under $.axes (the axis table of runner/, as the
  // configs wrote it): one row per run and axis, in the JSON's order. "features" is absent
  // from the configs of campaigns without a features axis: such runs count for the other
  // factors only.
  const std::string sql =
      std::string("SELECT r.id, r.status, CAST(json_extract(r.config_json, '$.image') AS TEXT), "
                  "a.key, CAST(a.value AS TEXT) "
                  "FROM runs r JOIN campaigns c ON c.id = r.campaign_id, "
                  "json_each(r.config_json, '$.axes') a "
                  "WHERE (?1 = '' OR c.name = ?1) AND (?2 = 0 OR c.id = ?2) AND ") +
      kJudgedDraw + " ORDER BY r.id, a.id";
  Statement s(db.db_, sql.c_str());
  s.Bind(1, campaign_name);
  s.Bind(2, campaign_id);
  std::vector<std::string> factors;  // factor names in order of first appearance
  auto factor_index = [&](const std::string& name) {
    auto it = std::find(factors.begin(), factors.end(), name);
    if (it != factors.end()) return static_cast<size_t>(it - factors.begin());
    factors.push_back(name);
    return factors.size() - 1;
  };
  using Key1 = std::pair<size_t, std::string>;
  using Key2 = std::pair<Key1, Key1>;
  std::map<Key1, Tally> single;
  std::map<Key2, Tally> pair;
  auto tally_run = [&](const std::vector<Key1>& v, bool red) {
    for (size_t i = 0; i < v.size(); ++i) {
      if (v[i].second.empty()) continue;
      Tally& t = single[v[i]];
      ++t.runs;
      t.red += red ? 1 : 0;
      for (size_t j = i + 1; j < v.size(); ++j) {
        if (v[j].second.empty()) continue;
        Tally& p = pair[{v[i], v[j]}];
        ++p.runs;
        p.red += red ? 1 : 0;
      }
    }
  };
  int64_t current = -1;
  bool current_red = false;
  std::vector<Key1> values;
  CTTE_RETURN_IF_ERROR(s.ForEachRow([&]() -> Status {
    const int64_t id = s.Int(0);
    if (id != current) {
      if (current >= 0) tally_run(values, current_red);
      current = id;
      current_red = s.Text(1) == "red";
      values.clear();
      values.push_back({factor_index("image"), s.Text(2)});
    }
    values.push_back({factor_index(s.Text(3)), s.Text(4)});
    return Status::Ok();
  }));
  if (current >= 0) tally_run(values, current_red);
  std::vector<PairRate> out;
  for (const auto& [key, t] : pair) {
    if (t.runs < std::max<uint64_t>(min_runs, 1)) continue;
    PairRate p;
    p.factor_a = factors[key.first.first];
    p.value_a = key.first.second;
    p.factor_b = factors[key.second.first];
    p.value_b = key.second.second;
    p.runs = t.runs;
    p.red = t.red;
    p.rate = t.rate();
    p.rate_a = single[key.first].rate();
    p.rate_b = single[key.second].rate();
    p.excess = p.rate - std::max(p.rate_a, p.rate_b);
    std::tie(p.lo, p.hi) = WilsonBounds(t.red, t.runs);
    p.excess_lo = p.lo - std::max(p.rate_a, p.rate_b);
    out.push_back(std::move(p));
  }
  // By the excess the pair shows at least (its Wilson lower bound), so 3 of 3 does not outrank
  // 30 of 30.
  std::stable_sort(out.begin(), out.end(), [](const PairRate& a, const PairRate& b) {
    if (a.excess_lo != b.excess_lo) return a.excess_lo > b.excess_lo;
    return a.runs > b.runs;
  });
  return out;
}

Result<std::vector<NightRow>> TriageStore::Nights(const Database& db, const std::string& name) {
  Result<std::vector<CampaignSummary>> campaigns = db.Campaigns(name);
  if (!campaigns.ok()) return campaigns.status();
  std::vector<NightRow> out;
  for (const CampaignSummary& c : *campaigns) {
    NightRow n;
    n.campaign = c;
    // verdict_counts (kept by triggers, schema.cc) where the file has it.
    const std::string sql =
        db.Has(HistoryCountsSchemaVersion())
            ? std::string(
                  "SELECT verdict, SUM(CASE WHEN outcome = 'pass' THEN runs ELSE 0 END), "
                  "SUM(CASE WHEN outcome = 'fail' THEN runs ELSE 0 END) FROM "
                  "verdict_counts WHERE campaign_id = ?1 GROUP BY verdict "
                  "HAVING SUM(runs) > 0 ORDER BY verdict")
            : std::string(
                  "SELECT v.verdict, COUNT(CASE WHEN v.outcome = 'pass' THEN 1 END), "
                  "COUNT(CASE WHEN v.outcome = 'fail' THEN 1 END) FROM verdicts v "
                  "JOIN runs r ON r.id = v.run_id WHERE r.campaign_id = ?1 AND ") +
                  kJudgedDraw + " GROUP BY v.verdict ORDER BY v.verdict";
    Statement s(db.db_, sql.c_str());
    s.Bind(1, c.id);
    CTTE_RETURN_IF_ERROR(s.ForEachRow([&]() -> Status {
      n.verdicts[s.Text(0)] = {s.U64(1), s.U64(2)};
      return Status::Ok();
    }));
    out.push_back(std::move(n));
  }
  return out;
}

}  // namespace ctte::db
