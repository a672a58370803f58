// Building the ReportModel: one Campaigns() row, RunsOfCampaign(), VerdictsOfCampaign(); the
// factor totals are counts over those rows (statuses as stored), the verdict totals count only
// the rows the database marks judged (RunRow::judged), as `ctte-lab history` does. The
// JSON columns are read with nlohmann/json; a malformed column is an error naming the run and
// the column, never silently skipped.
#include "reports/report_model.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <tuple>

#include "base/json.h"

namespace ctte::reports {
namespace {

using Json = nlohmann::ordered_json;

Result<Json> ParseColumn(const std::string& text, int64_t run_id, const char* column) {
  if (text.empty()) return Json();
  Result<Json> j = ParseJsonText(text, "run " + std::to_string(run_id) + " " + column);
  if (!j.ok()) return Status::Corruption(j.status().message());
  return j;
}

std::optional<double> Number(const Json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::optional<uint64_t> Unsigned(const Json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_unsigned()) return std::nullopt;
  return it->get<uint64_t>();
}

std::optional<uint64_t> Clock(const db::ClockReading& c) {
  if (c.read_back_hz) return c.read_back_hz;
  if (c.programmed_hz) return c.programmed_hz;
  return c.requested_hz;
}

// Mean share of sink cycles with ready=1 for the config's backpressure profile.
std::optional<double> ReadyShare(const Json& config) {
  if (!config.is_object() || !config.contains("backpressure")) return std::nullopt;
  const Json& bp = config["backpressure"];
  if (!bp.is_object() || !bp.contains("kind") || !bp["kind"].is_string()) return std::nullopt;
  const std::string kind = bp["kind"].get<std::string>();
  if (kind == "none") return 1.0;
  if (kind == "uniform") {
    auto p = Number(bp, "ready_percent");
    if (!p) return std::nullopt;
    return *p / 100.0;
  }
  if (kind == "bursty") return 0.5;  // ready and stalled blocks share one length distribution
  return std::nullopt;
}

// The episode counts and the recovery histogram: from "episode_summary" (every episode, the
// bounded form of runner/outcome.h), else by counting an older row's full "episodes" list.
void ReadEpisodes(const Json& m, ReportRun* out) {
  if (m.contains("loss_coverage") && m["loss_coverage"].is_object()) {
    const Json& c = m["loss_coverage"];
    ReportRun::LossCoverage& lc = out->loss_coverage;
    lc.drops = Unsigned(c, "drops").value_or(0);
    lc.return_stack = Unsigned(c, "return_stack").value_or(0);
    lc.hist = Unsigned(c, "hist").value_or(0);
    lc.held_repeat = Unsigned(c, "held_repeat").value_or(0);
    lc.seq_jump_setter = Unsigned(c, "seq_jump_setter").value_or(0);
  }
  if (m.contains("episode_summary") && m["episode_summary"].is_object()) {
    const Json& e = m["episode_summary"];
    out->recovered_episodes = Unsigned(e, "recovered").value_or(0);
    out->unrecovered_episodes = Unsigned(e, "unrecovered").value_or(0);
    if (e.contains("recovery_bytes_log2") && e["recovery_bytes_log2"].is_array()) {
      for (const Json& c : e["recovery_bytes_log2"]) {
        out->recovery_bytes_log2.push_back(c.is_number_unsigned() ? c.get<uint64_t>() : 0);
      }
    }
    return;
  }
  if (!m.contains("episodes") || !m["episodes"].is_array()) return;
  for (const Json& e : m["episodes"]) {
    const bool recovered = e.is_object() && e.value("recovered", false);
    auto bytes = Unsigned(e, "recovery_bytes");
    if (!recovered || !bytes) {
      ++out->unrecovered_episodes;
      continue;
    }
    ++out->recovered_episodes;
    size_t k = 0;
    for (uint64_t v = *bytes; v != 0; v >>= 1) ++k;
    if (out->recovery_bytes_log2.size() <= k) out->recovery_bytes_log2.resize(k + 1, 0);
    ++out->recovery_bytes_log2[k];
  }
}

Status FillRun(const db::Database& db, const db::RunRow& row, const ReportOptions& options,
               std::vector<db::VerdictRecord> verdicts, ReportRun* out) {
  const db::RunRecord& r = row.run;
  out->id = row.id;
  out->index = r.index;
  out->seed = r.seed;
  out->status = r.status;
  out->judged = row.judged;
  out->image_name = r.image_name;
  out->image_sha256 = r.image_sha256;
  out->started_at = r.started_at;
  out->wall_ms = r.wall_ms;
  out->stream_sha256 = r.stream_sha256;
  out->stream_size = r.stream_size;
  out->fabric_hz = Clock(r.fabric);
  out->sink_hz = Clock(r.sink);
  out->replay_command = ReplayCommand(row.id, options.db_path);
  out->board_id = r.board_id;
  out->infra_cause = r.infra_cause;
  if (row.earlier_attempts > 0) {
    auto attempts = db.AttemptsOfRun(row.id);
    if (!attempts.ok()) return attempts.status();
    out->earlier_attempts = std::move(*attempts);
  }

  Result<Json> config = ParseColumn(r.config_json, row.id, "config_json");
  if (!config.ok()) return config.status();
  if (config->is_object()) {
    if (config->contains("axes") && (*config)["axes"].is_object()) {
      for (const auto& [name, value] : (*config)["axes"].items()) {
        out->axes.emplace_back(name, value.is_string() ? value.get<std::string>() : value.dump());
      }
    }
    if (auto t = Unsigned(*config, "twin_of")) out->twin_of = *t;
  }

  Result<Json> metrics = ParseColumn(r.metrics_json, row.id, "metrics_json");
  if (!metrics.ok()) return metrics.status();
  const Json& m = *metrics;
  if (m.is_object()) {
    out->reason = db::StatusReasonOf(r.metrics_json);
    out->wire_bits_per_instruction = Number(m, "wire_bits_per_instruction");
    out->payload_bits_per_instruction = Number(m, "payload_bits_per_instruction");
    out->messages_per_kilo_instruction = Number(m, "messages_per_kilo_instruction");
    if (m.contains("reference_encoder")) {
      out->reference_wire_bits_per_instruction =
          Number(m["reference_encoder"], "wire_bits_per_instruction");
    }
    if (m.contains("output_rate")) out->output_peak_to_mean = Number(m["output_rate"], "peak_to_mean");
    out->reference_instructions = Unsigned(m, "reference_instructions");
    auto announced = Unsigned(m, "announced_lost_instructions");
    auto silent = Unsigned(m, "silent_lost_instructions");
    if (announced || silent) out->lost_instructions = announced.value_or(0) + silent.value_or(0);
    if (out->lost_instructions && out->reference_instructions && *out->reference_instructions) {
      out->loss_fraction = static_cast<double>(*out->lost_instructions) /
                           static_cast<double>(*out->reference_instructions);
    }
    ReadEpisodes(m, out);
  }
  if (auto share = ReadyShare(*config); share && out->fabric_hz && out->sink_hz &&
                                        *out->fabric_hz > 0) {
    out->sink_capacity = static_cast<double>(*out->sink_hz) /
                         static_cast<double>(*out->fabric_hz) * *share;
  }

  for (db::VerdictRecord& v : verdicts) {
    out->verdicts.push_back({std::move(v.verdict), v.outcome, std::move(v.evidence)});
  }
  if (out->reason.empty() && r.status == db::RunStatus::kRed) {
    for (const ReportVerdict& v : out->verdicts) {
      if (v.outcome == db::Outcome::kFail) {
        out->reason = v.verdict + ": " + v.evidence.substr(0, v.evidence.find('\n'));
        break;
      }
    }
  }
  return Status::Ok();
}

Result<db::CampaignSummary> FindCampaign(const db::Database& db, const std::string& campaign) {
  Result<db::CampaignSummary> c = db.CampaignByIdOrName(campaign);
  if (!c.ok() && c.status().code() == Status::Code::kNotFound) {
    return Status::NotFound(c.status().message() + " in the database");
  }
  return c;
}

}  // namespace

std::string ReportRun::AxisValue(const std::string& axis) const {
  for (const auto& [name, value] : axes) {
    if (name == axis) return value;
  }
  return "";
}

std::string ReportRun::AttemptsNote() const {
  std::string note;
  for (size_t k = 0; k < earlier_attempts.size(); ++k) {
    const db::AttemptRecord& a = earlier_attempts[k];
    note += "attempt " + std::to_string(k + 1) + ": " + db::RunStatusName(a.status);
    if (!a.infra_cause.empty()) note += " (" + a.infra_cause + ")";
    if (a.board_id) note += " on board " + std::to_string(*a.board_id);
    if (!a.reason.empty()) note += ": " + a.reason.substr(0, a.reason.find('\n'));
    if (a.respawned) note += "; board respawned";
    note += "\n";
  }
  return note;
}

db::BoardInfraCounts ReportModel::InfraTotals() const {
  db::BoardInfraCounts t;
  for (const db::BoardInfraCounts& b : infrastructure) {
    t.runs += b.runs;
    t.infra_attempts += b.infra_attempts;
    t.retries += b.retries;
    t.deaths += b.deaths;
    t.respawns += b.respawns;
  }
  return t;
}

std::vector<std::string> ReportRun::FailedVerdicts() const {
  std::vector<std::string> names;
  for (const ReportVerdict& v : verdicts) {
    if (v.outcome == db::Outcome::kFail) names.push_back(v.verdict);
  }
  return names;
}

uint64_t ReportModel::Count(db::RunStatus status) const {
  return static_cast<uint64_t>(std::count_if(
      runs.begin(), runs.end(), [status](const ReportRun& r) { return r.status == status; }));
}

std::vector<const ReportRun*> ReportModel::RedRuns() const {
  std::vector<const ReportRun*> red;
  for (const ReportRun& r : runs) {
    if (r.status == db::RunStatus::kRed) red.push_back(&r);
  }
  return red;
}

std::string VerdictsDocUrl(const std::string& docs_dir) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string url = "file://";
  for (const char ch : docs_dir + "/verdicts.md") {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
      url += ch;
    } else {
      url += '%';
      url += kHex[c >> 4];
      url += kHex[c & 15];
    }
  }
  return url;
}

std::string ReplayCommand(int64_t run_id, const std::string& db_path) {
  std::string cmd = "ctte-lab replay " + std::to_string(run_id);
  if (!db_path.empty()) cmd += " --db " + db_path;
  return cmd;
}

std::string ReportModel::CulpritOf(int64_t run_id) const {
  std::string culprits;
  for (const db::BisectionRecord& b : bisections) {
    if (b.run_id == run_id && b.kind == "bisect" && !b.culprits.empty()) culprits = b.culprits;
  }
  return culprits;
}

Result<ReportModel> BuildReportModel(const db::Database& db, const std::string& campaign,
                                     const ReportOptions& options) {
  ReportModel model;
  model.db_path = options.db_path;
  model.verdicts_doc_url =
      VerdictsDocUrl(options.docs_dir.empty() ? CTTE_DOCS_DIR : options.docs_dir);
  Result<db::CampaignSummary> c = FindCampaign(db, campaign);
  if (!c.ok()) return c.status();
  model.campaign = *c;
  auto rows = db.RunsOfCampaign(model.campaign.id);
  if (!rows.ok()) return rows.status();
  auto verdicts = db.VerdictsOfCampaign(model.campaign.id);  // one query, not one per run
  if (!verdicts.ok()) return verdicts.status();
  for (const db::RunRow& row : *rows) {
    if (std::optional<ControlRow> control = ControlRowOf(row)) {
      model.controls.push_back(std::move(*control));
      continue;
    }
    ReportRun run;
    auto of_run = verdicts->find(row.id);
    CTTE_RETURN_IF_ERROR(FillRun(db, row, options,
                                 of_run == verdicts->end() ? std::vector<db::VerdictRecord>{}
                                                           : std::move(of_run->second),
                                 &run));
    (row.run.replay_of ? model.replays : model.runs).push_back(std::move(run));
  }
  model.unsound = Unsound(model.controls);
  model.untrusted = UntrustedBoards(model.controls, *rows, BoardNames(db));
  std::sort(model.replays.begin(), model.replays.end(),
            [](const ReportRun& a, const ReportRun& b) { return a.id < b.id; });
  auto infra = db.InfraByBoardOfCampaign(model.campaign.id);
  if (!infra.ok()) return infra.status();
  model.infrastructure = std::move(*infra);
  auto bisections = db::TriageStore::BisectionsOfCampaign(db, model.campaign.id);
  if (!bisections.ok()) return bisections.status();
  model.bisections = std::move(*bisections);
  auto pairs = db::TriageStore::PairRates(db, model.campaign.name, ReportModel::kPairMinRuns,
                                          model.campaign.id);
  if (!pairs.ok()) return pairs.status();
  model.pairs = std::move(*pairs);
  auto nights = db::TriageStore::Nights(db, model.campaign.name);
  if (!nights.ok()) return nights.status();
  for (db::NightRow& n : *nights) {
    if (n.campaign.id <= model.campaign.id) model.nights.push_back(std::move(n));
  }
  if (model.nights.size() > ReportModel::kTrendNights) {
    model.nights.erase(model.nights.begin(),
                       model.nights.end() - static_cast<std::ptrdiff_t>(ReportModel::kTrendNights));
  }

  // Factors in the order of the first run that names them; values sorted as text.
  std::map<std::pair<size_t, std::string>, FactorValueCounts> counts;
  for (const ReportRun& r : model.runs) {
    for (const auto& [name, value] : r.axes) {
      auto pos = std::find(model.factors.begin(), model.factors.end(), name);
      if (pos == model.factors.end()) pos = model.factors.insert(model.factors.end(), name);
      const size_t order = static_cast<size_t>(pos - model.factors.begin());
      FactorValueCounts& fc = counts[{order, value}];
      fc.factor = name;
      fc.value = value;
      switch (r.status) {
        case db::RunStatus::kGreen: ++fc.green; break;
        case db::RunStatus::kRed: ++fc.red; break;
        case db::RunStatus::kInvalid: ++fc.invalid; break;
        case db::RunStatus::kInfra: ++fc.infra; break;
        case db::RunStatus::kPlanned: ++fc.planned; break;
      }
    }
    if (!r.judged) continue;
    for (const ReportVerdict& v : r.verdicts) {
      auto t_it = std::find_if(model.verdict_totals.begin(), model.verdict_totals.end(),
                               [&v](const VerdictTotals& t) { return t.verdict == v.verdict; });
      if (t_it == model.verdict_totals.end()) {
        t_it = model.verdict_totals.insert(model.verdict_totals.end(), VerdictTotals{v.verdict});
      }
      VerdictTotals& t = *t_it;
      switch (v.outcome) {
        case db::Outcome::kPass: ++t.pass; break;
        case db::Outcome::kFail: ++t.fail; break;
        case db::Outcome::kNotApplicable: ++t.not_applicable; break;
      }
    }
  }
  for (auto& [key, fc] : counts) model.factor_counts.push_back(std::move(fc));
  // Verdict outcomes per factor value, in factor, value and verdict order.
  std::map<std::tuple<size_t, std::string, size_t>, FactorVerdictCounts> per_value;
  for (const ReportRun& r : model.runs) {
    if (!r.judged) continue;
    for (const auto& [name, value] : r.axes) {
      const size_t f = static_cast<size_t>(
          std::find(model.factors.begin(), model.factors.end(), name) - model.factors.begin());
      for (const ReportVerdict& v : r.verdicts) {
        size_t k = 0;
        while (k < model.verdict_totals.size() && model.verdict_totals[k].verdict != v.verdict) ++k;
        FactorVerdictCounts& fv = per_value[{f, value, k}];
        fv.factor = name;
        fv.value = value;
        fv.verdict = v.verdict;
        switch (v.outcome) {
          case db::Outcome::kPass: ++fv.pass; break;
          case db::Outcome::kFail: ++fv.fail; break;
          case db::Outcome::kNotApplicable: ++fv.not_applicable; break;
        }
      }
    }
  }
  for (auto& [key, fv] : per_value) model.factor_verdicts.push_back(std::move(fv));
  return model;
}

}  // namespace ctte::reports
