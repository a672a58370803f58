// RunOutcome's rules and its serialisations (see outcome.h). The JSON texts here are stored in
// the database (runs.counters_json, runs.metrics_json, verdicts.metrics_json): their bytes are
// part of the runner's behaviour, so keys and their order do not change.
#include "runner/outcome.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>

#include "base/text.h"
#include "base/version.h"
#include "lab/wire.h"
#include "runner/outcome_json.h"

namespace ctte::runner {
namespace {

using Json = nlohmann::ordered_json;

Json VerdictMetricsJson(const oracle::Verdict& v) {
  Json m = Json::object();
  for (const oracle::Metric& x : v.metrics) m[x.name] = x.value;
  m["rule"] = v.evidence.rule;
  if (v.evidence.byte_end > v.evidence.byte_begin) {
    m["byte_begin"] = v.evidence.byte_begin;
    m["byte_end"] = v.evidence.byte_end;
  }
  if (v.evidence.has_index) m["retirement_index"] = v.evidence.retirement_index;
  return m;
}

db::Outcome ToDbOutcome(oracle::Outcome o) {
  switch (o) {
    case oracle::Outcome::kPass: return db::Outcome::kPass;
    case oracle::Outcome::kFail: return db::Outcome::kFail;
    default: return db::Outcome::kNotApplicable;
  }
}

std::string Evidence(const oracle::Verdict& v) {
  std::string e = v.evidence.message;
  if (!v.evidence.context.empty()) e += "\n" + v.evidence.context;
  return e;
}

Json EpisodeJson(const oracle::LossEpisode& e) {
  Json j{{"error_offset", e.error_offset},
         {"recovered", e.recovered},
         {"closed_window", e.closed_window},
         {"anchor_offset", e.anchor_offset},
         {"anchor_sync", e.anchor_sync},
         {"recovery_messages", e.recovery_messages},
         {"recovery_bytes", e.recovery_bytes},
         {"ambiguous", e.ambiguous}};
  if (!e.ambiguous) j["instructions_missing"] = e.instructions_missing;
  return j;
}

// Bucket k of a log2 histogram: values of bit length k (0 -> 0, 1 -> 1, 2..3 -> 2, 4..7 -> 3).
size_t Log2Bucket(uint64_t v) {
  size_t k = 0;
  while (v != 0) {
    ++k;
    v >>= 1;
  }
  return k;
}

void CountLog2(uint64_t v, std::vector<uint64_t>* hist) {
  const size_t k = Log2Bucket(v);
  if (hist->size() <= k) hist->resize(k + 1, 0);
  ++(*hist)[k];
}

// Totals and histograms over every episode: what a report plots, whatever was kept of the list.
Json EpisodeSummary(const std::vector<oracle::LossEpisode>& episodes) {
  uint64_t recovered = 0, closed = 0, ambiguous = 0, bytes_total = 0, bytes_max = 0;
  uint64_t messages_max = 0, missing = 0;
  std::vector<uint64_t> bytes_log2, messages_log2;
  for (const oracle::LossEpisode& e : episodes) {
    closed += e.closed_window ? 1 : 0;
    ambiguous += e.ambiguous ? 1 : 0;
    if (!e.ambiguous) missing += e.instructions_missing;
    if (!e.recovered) continue;
    ++recovered;
    bytes_total += e.recovery_bytes;
    bytes_max = std::max(bytes_max, e.recovery_bytes);
    messages_max = std::max(messages_max, e.recovery_messages);
    CountLog2(e.recovery_bytes, &bytes_log2);
    CountLog2(e.recovery_messages, &messages_log2);
  }
  return Json{{"recovered", recovered},
              {"unrecovered", episodes.size() - recovered},
              {"closed_window", closed},
              {"ambiguous", ambiguous},
              {"instructions_missing", missing},
              {"recovery_bytes_total", bytes_total},
              {"recovery_bytes_max", bytes_max},
              {"recovery_messages_max", messages_max},
              {"recovery_bytes_log2", bytes_log2},
              {"recovery_messages_log2", messages_log2}};
}

// `bounded`: the stored form (docs/db-schema.md#bounded-metrics): the first kStoredEpisodes
// episodes and the count left out; otherwise (--json of run and replay) every episode.
Json MetricsJson(const oracle::RunMetrics& m, const lab::Capture& c, bool bounded) {
  Json j;
  j["reference_instructions"] = m.reference_instructions;
  j["decoded_instructions"] = m.decoded_instructions;
  j["verified_instructions"] = m.verified_instructions;
  j["announced_lost_instructions"] = m.announced_lost_instructions;
  j["silent_lost_instructions"] = m.silent_lost_instructions;
  j["late_open_instructions"] = m.late_open_instructions;
  j["messages"] = m.messages;
  j["stream_bytes"] = m.stream_bytes;
  j["segments"] = m.segments;
  j["ambiguous_segments"] = m.ambiguous_segments;
  j["payload_bits_per_instruction"] = m.payload_bits_per_instruction;
  j["wire_bits_per_instruction"] = m.wire_bits_per_instruction;
  j["messages_per_kilo_instruction"] = m.messages_per_kilo_instruction;
  j["reference_encoder"] = {
      {"payload_bits_per_instruction", m.reference_payload_bits_per_instruction},
      {"wire_bits_per_instruction", m.reference_wire_bits_per_instruction},
      {"messages_per_kilo_instruction", m.reference_messages_per_kilo_instruction}};
  j["output_rate"] = {{"window_instructions", m.output_rate.window_instructions},
                      {"mean_bits_per_instruction", m.output_rate.MeanBitsPerInstruction()},
                      {"peak_bits_per_instruction", m.output_rate.PeakBitsPerInstruction()},
                      {"peak_to_mean", m.output_rate.PeakToMean()}};
  j["reference_bytes_identical"] = m.reference_bytes_identical;
  j["ready_stall_bound"] = m.ready_stall_bound;
  j["loss_episodes"] = m.episodes.size();
  const size_t kept = bounded ? std::min(m.episodes.size(), kStoredEpisodes) : m.episodes.size();
  Json eps = Json::array();
  for (size_t k = 0; k < kept; ++k) eps.push_back(EpisodeJson(m.episodes[k]));
  j["episodes"] = eps;
  j["episodes_omitted"] = m.episodes.size() - kept;
  j["episode_summary"] = EpisodeSummary(m.episodes);
  if (!m.episodes.empty()) {
    const oracle::LossCoverage& lc = m.loss_coverage;
    j["loss_coverage"] = {{"drops", lc.drops},
                          {"return_stack", lc.return_stack},
                          {"hist", lc.hist},
                          {"held_repeat", lc.held_repeat},
                          {"seq_jump_setter", lc.seq_jump_setter}};
  }
  j["fabric_cycles"] = c.fabric_cycles;
  j["sink_cycles"] = c.sink_cycles;
  j["sim_time_ps"] = c.sim_time_ps;
  j["beats"] = c.beats;
  j["retired"] = c.retired;
  j["core_stop"] = c.core_stop;
  if (c.core_stop == "exited") j["exit_code"] = c.exit_code;
  if (!c.console.empty()) j["console"] = c.console;
  j["board_wall_seconds"] = c.wall_seconds;
  return j;
}

Json CountersJson(const lab::Capture& c) {
  Json j = lab::wire::ToJson(c.counters);
  j.update(Json{{"te_empty", c.te_empty}, {"drained", c.drained},
                {"drain_sink_cycles", c.drain_sink_cycles}, {"bytes_received", c.bytes_received},
                {"ring_wrapped", c.ring_wrapped}});
  if (c.ready_stall_measured) j["max_ready_stall_sink_cycles"] = c.max_ready_stall_sink_cycles;
  return j;
}

}  // namespace

namespace internal {

Json OutcomeToJson(const RunOutcome& o) {
  Json j;
  j["status"] = RunStatusName(o.status);
  j["reason"] = o.status_reason;
  j["config"] = Json::parse(RunConfigToJson(o.config));
  j["image"] = {{"name", o.image_name}, {"sha256_at_target", o.image_sha256},
                {"build_id", o.build_id}};
  j["board"] = {{"kind", o.board_kind}, {"serial", o.board_serial}};
  const auto clock = [](const db::ClockReading& c) {
    return Json{{"requested_hz", c.requested_hz.value_or(0)},
                {"programmed_hz", c.programmed_hz.value_or(0)},
                {"read_back_hz", c.read_back_hz.value_or(0)}};
  };
  j["clocks"] = {{"fabric", clock(o.fabric)}, {"sink", clock(o.sink)}};
  Json vs = Json::array();
  for (const oracle::Verdict& v : o.verdicts) {
    const std::string code = oracle::VerdictCodeName(v.code);
    vs.push_back(Json{{"verdict", code}, {"outcome", db::OutcomeName(ToDbOutcome(v.outcome))},
                      {"evidence", Evidence(v)}, {"metrics", VerdictMetricsJson(v)},
                      {"doc", "docs/verdicts.md#" + code}});
  }
  j["verdicts"] = vs;
  j["stream"] = {{"sha256", o.stream_sha256}, {"size", o.stream_size}};
  if (!o.twin_stream_sha256.empty()) j["twin_stream_sha256"] = o.twin_stream_sha256;
  j["counters"] = o.capture ? CountersJson(*o.capture) : Json();
  j["metrics"] = o.capture ? MetricsJson(o.metrics, *o.capture, /*bounded=*/false) : Json();
  j["wall_seconds"] = o.wall_seconds;
  return j;
}

}  // namespace internal

RunOutcome PrepareFailedOutcome(const RunConfig& config, const Status& why) {
  RunOutcome out;
  out.config = config;
  out.status = RunStatus::kInfra;
  out.cause = InfraCause::kPrepare;
  out.status_reason = "prepare: " + why.ToString();
  return out;
}

void ApplySession(const BoardSession& s, const std::string& prefix, RunOutcome* out) {
  if (prefix.empty()) {  // the main board's facts describe the run
    out->image_sha256 = s.receipt.sha256;
    out->build_id = s.receipt.sha256.empty() ? "" : Hex64(s.receipt.build_id);
    out->board_kind = s.identity.kind;
    out->board_serial = s.identity.serial;
    out->fabric = s.fabric;
    out->sink = s.sink;
  }
  switch (s.end) {
    case BoardSession::End::kCaptured: return;
    case BoardSession::End::kInfra:
      out->status = RunStatus::kInfra;
      out->cause = s.cause;
      break;
    case BoardSession::End::kInvalid: out->status = RunStatus::kInvalid; break;
    case BoardSession::End::kRtlAssertion:
      out->status = RunStatus::kRed;
      // Every run carries the eight verdicts: those not judged (no capture exists) are n/a
      // with the reason, then the assertion itself.
      for (oracle::VerdictCode code : oracle::AllVerdictCodes()) {
        if (code == oracle::VerdictCode::kRtlAssertion) continue;
        const bool judged = std::any_of(out->verdicts.begin(), out->verdicts.end(),
                                        [code](const oracle::Verdict& v) { return v.code == code; });
        if (judged) continue;  // the main run was judged; its twin stopped on the assertion
        oracle::Verdict na;
        na.code = code;
        na.outcome = oracle::Outcome::kNotApplicable;
        na.evidence.rule = "not_judged";
        na.evidence.message = "not judged: the run stopped on an RTL assertion (" + prefix +
                              s.reason + ")";
        out->verdicts.push_back(std::move(na));
      }
      out->verdicts.push_back(RtlAssertionVerdict(prefix + s.reason));
      break;
  }
  out->status_reason = prefix + s.reason;
}

void ClassifyJudged(bool ring_wrapped, uint64_t bytes_received, uint64_t ring_bytes,
                    RunOutcome* out) {
  out->status = RunStatus::kGreen;
  out->cause = InfraCause::kNone;
  for (const oracle::Verdict& v : out->verdicts) {
    if (v.failed()) {
      out->status = RunStatus::kRed;
      out->status_reason = v.ToString();
      break;
    }
  }
  if (ring_wrapped) {
    out->status = RunStatus::kInvalid;
    out->status_reason = "capture ring wrapped: " + std::to_string(bytes_received) +
                         " bytes received, ring holds " + std::to_string(ring_bytes);
  }
}

oracle::Verdict RtlAssertionVerdict(const std::string& message) {
  oracle::Verdict v;
  v.code = oracle::VerdictCode::kRtlAssertion;
  v.outcome = oracle::Outcome::kFail;
  v.evidence.rule = "rtl_assertion";
  v.evidence.message = message;
  return v;
}

db::RunStatus ToDbStatus(RunStatus s) {
  switch (s) {
    case RunStatus::kGreen: return db::RunStatus::kGreen;
    case RunStatus::kRed: return db::RunStatus::kRed;
    case RunStatus::kInvalid: return db::RunStatus::kInvalid;
    case RunStatus::kInfra: return db::RunStatus::kInfra;
  }
  return db::RunStatus::kInfra;
}

std::optional<RunStatus> FromDbStatus(db::RunStatus s) {
  switch (s) {
    case db::RunStatus::kGreen: return RunStatus::kGreen;
    case db::RunStatus::kRed: return RunStatus::kRed;
    case db::RunStatus::kInvalid: return RunStatus::kInvalid;
    case db::RunStatus::kInfra: return RunStatus::kInfra;
    case db::RunStatus::kPlanned: break;
  }
  return std::nullopt;
}

db::InfraCause ToDbInfraCause(InfraCause c) {
  // One to one: every cause is stored under its own token (RunStatusTest checks both names).
  switch (c) {
    case InfraCause::kPrepare: return db::InfraCause::kPrepare;
    case InfraCause::kDeploy: return db::InfraCause::kDeploy;
    case InfraCause::kIdentity: return db::InfraCause::kIdentity;
    case InfraCause::kManifestMismatch: return db::InfraCause::kManifestMismatch;
    case InfraCause::kClosureGate: return db::InfraCause::kClosureGate;
    case InfraCause::kBoardDied: return db::InfraCause::kBoardDied;
    case InfraCause::kBoardTimeout: return db::InfraCause::kBoardTimeout;
    case InfraCause::kBoardError: return db::InfraCause::kBoardError;
    case InfraCause::kClock: return db::InfraCause::kClock;
    case InfraCause::kRingCapacity: return db::InfraCause::kRingCapacity;
    case InfraCause::kNone: break;
  }
  return db::InfraCause::kOther;
}

std::vector<db::VerdictRecord> RunOutcome::VerdictRecords() const {
  std::vector<db::VerdictRecord> rows;
  for (const oracle::Verdict& v : verdicts) {
    db::VerdictRecord r;
    r.verdict = oracle::VerdictCodeName(v.code);
    r.outcome = ToDbOutcome(v.outcome);
    r.evidence = Evidence(v);
    r.metrics_json = VerdictMetricsJson(v).dump();
    rows.push_back(std::move(r));
  }
  return rows;
}

db::RunRecord RunOutcome::ToRunRecord() const {
  db::RunRecord r;
  r.index = config.index;
  r.seed = config.seed;
  r.config_json = RunConfigToJson(config);
  r.status = ToDbStatus(status);
  if (status == RunStatus::kInfra) r.infra_cause = db::InfraCauseName(ToDbInfraCause(cause));
  r.image_name = image_name;
  r.image_sha256 = image_sha256;
  r.pins = pins;
  if (!r.pins.workload_sha256.empty()) r.pins.tool_version = ToolVersion();
  r.fabric = fabric;
  r.sink = sink;
  r.wall_ms = static_cast<int64_t>(wall_seconds * 1000.0);
  r.stream_sha256 = stream_sha256;
  if (!stream_sha256.empty()) r.stream_size = stream_size;
  if (capture) {
    r.counters_json = CountersJson(*capture).dump();
    r.metrics_json = MetricsJson(metrics, *capture, /*bounded=*/true).dump();
  }
  return r;
}

std::string RunOutcome::ToJson(int indent) const {
  return internal::OutcomeToJson(*this).dump(indent);
}

db::RunRecord StoredRunRecord(const RunOutcome& out) {
  db::RunRecord rec = out.ToRunRecord();
  Json j = out.capture ? MetricsJson(out.metrics, *out.capture, /*bounded=*/true)
                        : Json::object();
  if (!out.status_reason.empty()) j["status_reason"] = out.status_reason;
  rec.metrics_json = j.empty() ? std::string() : j.dump();
  if (rec.image_name.empty()) rec.image_name = out.config.image;
  return rec;
}

Result<std::string> BoundMetricsJson(const std::string& full) {
  Json in = Json::parse(full, nullptr, false);
  if (!in.is_object()) return Status::InvalidArgument("metrics_json is not a JSON object");
  if (!in.contains("episodes") || !in["episodes"].is_array() || in.contains("episode_summary")) {
    return full;
  }
  std::vector<oracle::LossEpisode> episodes;
  for (const Json& e : in["episodes"]) {
    if (!e.is_object()) return Status::InvalidArgument("metrics_json episodes[]: not an object");
    oracle::LossEpisode x;
    x.error_offset = e.value("error_offset", uint64_t{0});
    x.recovered = e.value("recovered", false);
    x.closed_window = e.value("closed_window", false);
    x.anchor_offset = e.value("anchor_offset", uint64_t{0});
    x.anchor_sync = e.value("anchor_sync", uint8_t{0});
    x.recovery_messages = e.value("recovery_messages", uint64_t{0});
    x.recovery_bytes = e.value("recovery_bytes", uint64_t{0});
    x.ambiguous = e.value("ambiguous", false);
    x.instructions_missing = e.value("instructions_missing", uint64_t{0});
    episodes.push_back(x);
  }
  Json out = Json::object();
  for (auto it = in.begin(); it != in.end(); ++it) {
    if (it.key() != "episodes") {
      out[it.key()] = it.value();
      continue;
    }
    Json eps = Json::array();
    const size_t kept = std::min(episodes.size(), kStoredEpisodes);
    for (size_t k = 0; k < kept; ++k) eps.push_back(EpisodeJson(episodes[k]));
    out["episodes"] = eps;
    out["episodes_omitted"] = episodes.size() - kept;
    out["episode_summary"] = EpisodeSummary(episodes);
  }
  return out.dump();
}

std::string FormatOutcome(const RunOutcome& o) {
  std::string s;
  for (const oracle::Verdict& v : o.verdicts) {
    char head[64];
    std::snprintf(head, sizeof head, "%-27s %-5s ", oracle::VerdictCodeName(v.code),
                  oracle::OutcomeName(v.outcome));
    s += head + v.evidence.message + "\n";
    if (v.failed() && !v.evidence.context.empty()) {
      std::string ctx = v.evidence.context;
      size_t pos = 0;
      while ((pos = ctx.find('\n', pos)) != std::string::npos) ctx.replace(pos++, 1, "\n      ");
      s += "      " + ctx + "\n";
    }
  }
  s += std::string("status: ") + RunStatusName(o.status);
  if (!o.status_reason.empty()) s += " (" + o.status_reason + ")";
  s += "\n";
  return s;
}

db::AttemptRecord ToAttemptRecord(const RunAttempt& a) {
  db::AttemptRecord r;
  r.board_id = a.board_id > 0 ? std::optional<int64_t>(a.board_id) : std::nullopt;
  r.status = ToDbStatus(a.status);
  if (a.status == RunStatus::kInfra) r.infra_cause = db::InfraCauseName(ToDbInfraCause(a.cause));
  r.reason = a.reason;
  r.respawned = a.respawned;
  r.started_at = a.started_at;
  r.wall_ms = a.wall_ms;
  return r;
}

std::vector<db::AttemptRecord> ToAttemptRecords(const std::vector<RunAttempt>& attempts) {
  std::vector<db::AttemptRecord> out;
  for (const RunAttempt& a : attempts) out.push_back(ToAttemptRecord(a));
  return out;
}

RunAttempt AttemptOf(const RunOutcome& outcome, int64_t board_id, const std::string& started_at,
                     bool respawned) {
  RunAttempt a;
  a.board_id = board_id;
  a.status = outcome.status;
  a.cause = outcome.cause;
  a.reason = outcome.status_reason;
  a.respawned = respawned;
  a.started_at = started_at;
  a.wall_ms = static_cast<int64_t>(outcome.wall_seconds * 1000.0 + 0.5);
  return a;
}

}  // namespace ctte::runner
