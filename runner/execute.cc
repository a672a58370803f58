// ExecuteRun: one run from plan to verdicts (see execute.h for the status rules).
//
// How: PrepareRun resolves files and builds the reference before any board is touched, so a bad
// config is a usage error, not a lab failure. ExecuteRun then deploys (hash computed at the
// target, build id read back, both compared with the manifest), programs and reads back both
// clocks (closure gate on the fabric clock, tolerance on the read-back), runs, repeats all of it
// on the twin board when there is one, decodes, and judges.
#include "runner/execute.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <filesystem>

#include "base/random.h"
#include "base/sha256.h"
#include "lab/wire.h"
#include "oracle/iss.h"
#include "oracle/program_gen.h"

namespace ctte::runner {
namespace {

using Json = nlohmann::ordered_json;

std::string Hex64(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016" PRIx64, v);
  return buf;
}

// The beat index at which `retired` instructions have retired (ISS run up to there).
uint64_t BeatOfRetirement(const oracle::ProgramImage& image, const oracle::IssOptions& o,
                          uint64_t retired) {
  oracle::Iss iss(image, o);
  oracle::Retired r;
  uint64_t beat = 0, done = 0;
  while (done < retired && iss.Step(&r)) {
    ++beat;
    if (r.retires) ++done;
  }
  return beat;
}

Result<std::string> ResolveWorkload(const RunConfig& c, const ExecuteOptions& o) {
  if (!o.workload_path.empty()) return o.workload_path;
  if (c.workload == "random") {
    const std::string dir = o.scratch_dir.empty() ? std::string("/tmp") : o.scratch_dir;
    const std::string path = dir + "/ctte-random-" + SeedHex(c.program_seed) + ".elf";
    if (!std::filesystem::exists(path)) {
      const oracle::GeneratedProgram p = oracle::GenerateProgram(c.program_seed, {});
      CTTE_RETURN_IF_ERROR(oracle::WriteElf(path, p.entry, p.segments, p.symbols));
    }
    return path;
  }
  if (c.workload.empty()) return Status::InvalidArgument("config.workload: empty");
  const std::string path = o.workload_dir + "/" + c.workload + ".elf";
  if (!std::filesystem::exists(path)) {
    return Status::NotFound("config.workload: no workload ELF " + path);
  }
  return path;
}

lab::BackpressureProfile SinkProfile(const RunConfig& c) {
  lab::BackpressureProfile p;
  p.seed = c.sink_seed;
  switch (c.backpressure_params.kind) {
    case Backpressure::Kind::kNone: p.kind = lab::BackpressureKind::kNone; break;
    case Backpressure::Kind::kUniform:
      p.kind = lab::BackpressureKind::kUniform;
      p.accept_num = c.backpressure_params.ready_percent;
      p.accept_den = 100;
      break;
    case Backpressure::Kind::kBursty:
      p.kind = lab::BackpressureKind::kBursty;
      p.ready_min = p.stall_min = c.backpressure_params.burst_min;
      p.ready_max = p.stall_max = c.backpressure_params.burst_max;
      break;
  }
  return p;
}

}  // namespace

Result<PreparedRun> PrepareRun(const RunConfig& config, const ExecuteOptions& options) {
  PreparedRun r;
  r.config = config;
  const std::string manifest = !options.manifest_path.empty()
                                   ? options.manifest_path
                                   : options.image_dir + "/" + config.image + ".manifest.json";
  Result<lab::ImageManifest> m = lab::ImageManifest::Load(manifest);
  if (!m.ok()) return m.status();
  r.manifest = *m;
  Result<std::string> wl = ResolveWorkload(config, options);
  if (!wl.ok()) return wl.status();
  r.workload_path = *wl;
  Result<oracle::ProgramImage> prog = oracle::ProgramImage::Load(r.workload_path);
  if (!prog.ok()) return prog.status();
  r.program = std::make_unique<oracle::ProgramImage>(std::move(*prog));

  lab::RunPlan& p = r.plan;
  p.workload_elf = r.workload_path;
  if (config.mode == "htm" || config.mode.empty()) {
    p.encoder.mode = 6;
  } else if (config.mode == "btm") {
    p.encoder.mode = 3;
  } else {
    return Status::InvalidArgument("config.mode: expected htm or btm, got '" + config.mode + "'");
  }
  switch (config.sync_params.kind) {
    case SyncPolicy::Kind::kOff: p.encoder.sync_mode = 0; break;
    case SyncPolicy::Kind::kMessages: p.encoder.sync_mode = 1; break;
    case SyncPolicy::Kind::kHalfwords: p.encoder.sync_mode = 3; break;
  }
  if (config.sync_params.kind != SyncPolicy::Kind::kOff) {
    if (config.sync_params.period_log2 < 4 || config.sync_params.period_log2 > 19) {
      return Status::InvalidArgument("config.sync: period 2^" +
                                     std::to_string(config.sync_params.period_log2) +
                                     " outside 2^4..2^19");
    }
    p.encoder.sync_max = static_cast<uint8_t>(config.sync_params.period_log2 - 4);
  }
  p.iss.max_instructions = options.max_instructions;
  p.iss.interrupt_at = config.interrupt_at;
  p.iss.interrupt_every = config.interrupt_every;
  if (config.core_stall_percent >= 100) {
    return Status::InvalidArgument("config.core_stall_percent: must be below 100");
  }
  p.stall.seed = config.stall_seed;
  p.stall.ipc_num = 100 - config.core_stall_percent;
  p.stall.ipc_den = 100;
  if (options.stall_override) p.stall = *options.stall_override;
  p.sink = options.sink_override ? *options.sink_override : SinkProfile(config);
  p.ring_bytes = options.ring_bytes;
  p.drain_budget_sink_cycles = options.drain_budget_sink_cycles;
  p.model_seed = DeriveSeed(config.seed, "model");
  p.fst_path = options.fst_path;
  p.stop_at_end = true;

  oracle::ExpectedOptions eo;
  eo.iss.max_instructions = p.iss.max_instructions;
  eo.iss.interrupt_at = p.iss.interrupt_at;
  eo.iss.interrupt_every = p.iss.interrupt_every;
  if (config.window_stop) {
    // A stop is trTeEnable=0 after `stop` retirements: the core ends there and the board's
    // stop-at-end flushes.
    const uint64_t beat = BeatOfRetirement(*r.program, eo.iss, *config.window_stop);
    p.iss.max_instructions = eo.iss.max_instructions = std::min(p.iss.max_instructions, beat);
  }
  eo.encoder.mode = p.encoder.mode == 3 ? oracle::TraceMode::kBtm : oracle::TraceMode::kHtm;
  eo.encoder.sync_mode = p.encoder.sync_mode;
  eo.encoder.sync_max = p.encoder.sync_max;
  eo.stop_at_end = true;
  if (config.window_pause.has_value() != config.window_resume.has_value()) {
    return Status::InvalidArgument("config.window: pause and resume must be given together");
  }
  if (config.window_start > 0) eo.edges.push_back({config.window_start, true});
  else eo.edges.push_back({0, true});
  if (config.window_pause) {
    if (*config.window_pause < config.window_start || *config.window_resume < *config.window_pause) {
      return Status::InvalidArgument("config.window: need start <= pause <= resume");
    }
    eo.edges.push_back({*config.window_pause, false});
    eo.edges.push_back({*config.window_resume, true});
  }
  std::vector<uint64_t> beats;
  r.expected = oracle::BuildExpected(*r.program, eo, &beats);
  if (!(eo.edges.size() == 1 && eo.edges[0].at == 0)) {
    for (size_t i = 0; i < eo.edges.size(); ++i) {
      p.window_edges.push_back(lab::WindowEdge{beats[i], eo.edges[i].open});
    }
  }
  r.fabric_hz = config.fabric_hz != 0 ? config.fabric_hz
                                      : static_cast<uint64_t>(r.manifest.fmax_mhz * 1e6);
  r.sink_hz = config.sink_hz != 0 ? config.sink_hz : 100'000'000;
  return r;
}

oracle::CaptureFacts ToCaptureFacts(const lab::Capture& c, uint64_t drain_budget) {
  oracle::CaptureFacts f;
  f.messages = c.counters.messages;
  f.bytes = c.counters.bytes;
  f.overflow_episodes = c.counters.overflow_episodes;
  f.records_dropped = c.counters.records_dropped;
  f.halfwords_retired = c.counters.halfwords_retired;
  f.bytes_received = c.bytes_received;
  f.ring_wrapped = c.ring_wrapped;
  f.te_empty = c.te_empty;
  f.drained = c.drained;
  f.drain_sink_cycles = c.drain_sink_cycles;
  f.drain_budget_sink_cycles = drain_budget;
  if (c.ready_stall_measured) f.max_ready_stall_sink_cycles = c.max_ready_stall_sink_cycles;
  f.fabric_hz = c.fabric_hz;
  f.sink_hz = c.sink_hz;
  f.beats = c.beats;
  f.retired = c.retired;
  f.core_stop = c.core_stop;
  return f;
}

namespace {

// Deploy + clocks + run on one board. On a lab problem returns false with *status/*reason set.
struct BoardRun {
  lab::DeployReceipt receipt;
  lab::BoardIdentity identity;
  db::ClockReading fabric, sink;
  lab::Capture capture;
};

bool RunOnBoard(const PreparedRun& run, lab::Board& board, const ExecuteOptions& o,
                BoardRun* out, db::RunStatus* status, std::string* reason,
                std::string* rtl_assertion) {
  const auto infra = [&](const std::string& why) {
    *status = db::RunStatus::kInfra;
    *reason = why;
    return false;
  };
  Result<lab::DeployReceipt> receipt = board.Deploy(run.manifest.ToDeployRequest());
  if (!receipt.ok()) return infra("deploy: " + receipt.status().ToString());
  out->receipt = *receipt;
  if (Status s = lab::CheckReceipt(run.manifest, *receipt); !s.ok()) {
    return infra("deploy: " + s.ToString());
  }
  Result<lab::BoardIdentity> id = board.Identify();
  if (!id.ok()) return infra("identify: " + id.status().ToString());
  out->identity = *id;
  if (!id->image_sha256.empty() && id->image_sha256 != receipt->sha256) {
    return infra("identity: the board reports image " + id->image_sha256 + ", deployed " +
                 receipt->sha256);
  }
  struct Dom { lab::ClockDomain d; uint64_t hz; db::ClockReading* rd; const char* name; };
  Dom doms[2] = {{lab::ClockDomain::kFabric, run.fabric_hz, &out->fabric, "fabric"},
                 {lab::ClockDomain::kSink, run.sink_hz, &out->sink, "sink"}};
  for (Dom& d : doms) {
    d.rd->requested_hz = d.hz;
    Result<uint64_t> prog = board.SetClock(d.d, d.hz);
    if (!prog.ok()) return infra(std::string("set clock ") + d.name + ": " + prog.status().ToString());
    d.rd->programmed_hz = *prog;
    Result<uint64_t> read = board.ReadClock(d.d);
    if (!read.ok()) return infra(std::string("read clock ") + d.name + ": " + read.status().ToString());
    d.rd->read_back_hz = *read;
  }
  const double fmax_hz = run.manifest.fmax_mhz * 1e6;
  const uint64_t fabric_read = *out->fabric.read_back_hz;
  if (fmax_hz > 0 && (static_cast<double>(*out->fabric.programmed_hz) > fmax_hz ||
                      static_cast<double>(fabric_read) > fmax_hz)) {
    return infra("closure gate: fabric clock " + std::to_string(fabric_read) +
                 " Hz is above the image's declared fmax " + std::to_string(run.manifest.fmax_mhz) +
                 " MHz; refused to run");
  }
  for (Dom& d : doms) {
    const uint64_t p = *d.rd->programmed_hz, rb = *d.rd->read_back_hz;
    const uint64_t diff = p > rb ? p - rb : rb - p;
    if (p == 0 || diff * 1'000'000 > p * o.clock_tolerance_ppm) {
      *status = db::RunStatus::kInvalid;
      *reason = std::string(d.name) + " clock read back " + std::to_string(rb) +
                " Hz, programmed " + std::to_string(p) + " Hz: outside " +
                std::to_string(o.clock_tolerance_ppm) + " ppm";
      return false;
    }
  }
  Result<lab::Capture> cap = board.Run(run.plan);
  if (!cap.ok()) {
    if (lab::ClassifyFailure(cap.status()) == lab::FailureKind::kRtlAssertion) {
      *status = db::RunStatus::kRed;
      *rtl_assertion = cap.status().message();
      *reason = cap.status().message();
      return false;
    }
    return infra("run: " + cap.status().ToString());
  }
  out->capture = std::move(*cap);
  return true;
}

Json VerdictMetricsJson(const oracle::Verdict& v) {
  Json j = Json::object();
  for (const oracle::Metric& m : v.metrics) j[m.name] = m.value;
  return j;
}

Json MetricsJson(const oracle::RunMetrics& m, const lab::Capture* c) {
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
  j["reference_bytes_identical"] = m.reference_bytes_identical;
  j["ready_stall_bound"] = m.ready_stall_bound;
  j["loss_episodes"] = m.episodes.size();
  Json eps = Json::array();
  for (const oracle::LossEpisode& e : m.episodes) {
    eps.push_back(Json{{"error_offset", e.error_offset},
                       {"recovered", e.recovered},
                       {"closed_window", e.closed_window},
                       {"anchor_offset", e.anchor_offset},
                       {"anchor_sync", e.anchor_sync},
                       {"recovery_messages", e.recovery_messages},
                       {"recovery_bytes", e.recovery_bytes},
                       {"ambiguous", e.ambiguous}});
    if (!e.ambiguous) eps.back()["instructions_missing"] = e.instructions_missing;
  }
  j["episodes"] = eps;
  if (c != nullptr) {
    j["fabric_cycles"] = c->fabric_cycles;
    j["sink_cycles"] = c->sink_cycles;
    j["sim_time_ps"] = c->sim_time_ps;
    j["beats"] = c->beats;
    j["retired"] = c->retired;
    j["core_stop"] = c->core_stop;
    j["board_wall_seconds"] = c->wall_seconds;
  }
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

RunOutcome ExecuteRun(const PreparedRun& run, lab::Board& board, lab::Board* twin_board,
                      const ExecuteOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  RunOutcome out;
  out.config = run.config;
  out.image_name = run.manifest.name;
  const auto finish = [&]() -> RunOutcome {
    out.wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return std::move(out);
  };
  BoardRun main;
  std::string assertion;
  bool ok = RunOnBoard(run, board, options, &main, &out.status, &out.status_reason, &assertion);
  out.image_sha256 = main.receipt.sha256;
  out.build_id = main.receipt.sha256.empty() ? "" : Hex64(main.receipt.build_id);
  out.board_kind = main.identity.kind;
  out.board_serial = main.identity.serial;
  out.fabric = main.fabric;
  out.sink = main.sink;
  if (!ok) {
    if (!assertion.empty()) {
      oracle::Verdict v;
      v.code = oracle::VerdictCode::kRtlAssertion;
      v.outcome = oracle::Outcome::kFail;
      v.evidence.rule = "rtl_assertion";
      v.evidence.message = assertion;
      out.verdicts.push_back(v);
    }
    return finish();
  }
  BoardRun twin;
  const bool has_twin = twin_board != nullptr;
  if (has_twin) {
    std::string twin_assertion;
    db::RunStatus ts = db::RunStatus::kInfra;
    std::string treason;
    if (!RunOnBoard(run, *twin_board, options, &twin, &ts, &treason, &twin_assertion)) {
      out.status = ts == db::RunStatus::kRed ? db::RunStatus::kRed : ts;
      out.status_reason = "twin: " + treason;
      if (!twin_assertion.empty()) {
        oracle::Verdict v;
        v.code = oracle::VerdictCode::kRtlAssertion;
        v.outcome = oracle::Outcome::kFail;
        v.evidence.rule = "rtl_assertion";
        v.evidence.message = "twin: " + twin_assertion;
        out.verdicts.push_back(v);
      }
      return finish();
    }
  }
  const lab::Capture& cap = main.capture;
  out.stream = cap.bytes;
  out.stream_size = cap.bytes.size();
  out.stream_sha256 = Sha256Hex(std::span<const uint8_t>(cap.bytes));
  out.counters_json = CountersJson(cap).dump();

  oracle::Observed obs;
  obs.stream = oracle::DecodeForJudging(cap.bytes, *run.program, run.expected.mode);
  obs.capture = ToCaptureFacts(cap, run.plan.drain_budget_sink_cycles);
  if (has_twin) {
    obs.twin = oracle::DecodeForJudging(twin.capture.bytes, *run.program, run.expected.mode);
    obs.twin_capture = ToCaptureFacts(twin.capture, run.plan.drain_budget_sink_cycles);
    out.twin_stream_sha256 = Sha256Hex(std::span<const uint8_t>(twin.capture.bytes));
  } else if (options.twin_stream.has_value()) {
    obs.twin = oracle::DecodeForJudging(*options.twin_stream, *run.program, run.expected.mode);
    out.twin_stream_sha256 = Sha256Hex(std::span<const uint8_t>(*options.twin_stream));
  }
  oracle::Judgement j = oracle::JudgeRun(run.expected, obs);
  out.verdicts = std::move(j.verdicts);
  out.metrics = std::move(j.metrics);
  out.metrics_json = MetricsJson(out.metrics, &cap).dump();

  out.status = db::RunStatus::kGreen;
  for (const oracle::Verdict& v : out.verdicts) {
    if (v.failed()) {
      out.status = db::RunStatus::kRed;
      out.status_reason = v.ToString();
      break;
    }
  }
  if (cap.ring_wrapped || (has_twin && twin.capture.ring_wrapped)) {
    out.status = db::RunStatus::kInvalid;
    out.status_reason = "capture ring wrapped: " + std::to_string(cap.bytes_received) +
                        " bytes received, ring holds " + std::to_string(run.plan.ring_bytes);
  }
  return finish();
}

std::vector<db::VerdictRecord> RunOutcome::VerdictRecords() const {
  std::vector<db::VerdictRecord> rows;
  for (const oracle::Verdict& v : verdicts) {
    db::VerdictRecord r;
    r.verdict = oracle::VerdictCodeName(v.code);
    r.outcome = v.outcome == oracle::Outcome::kPass   ? db::Outcome::kPass
                : v.outcome == oracle::Outcome::kFail ? db::Outcome::kFail
                                                      : db::Outcome::kNotApplicable;
    r.evidence = v.evidence.message;
    if (!v.evidence.context.empty()) r.evidence += "\n" + v.evidence.context;
    Json m = VerdictMetricsJson(v);
    m["rule"] = v.evidence.rule;
    if (v.evidence.byte_end > v.evidence.byte_begin) {
      m["byte_begin"] = v.evidence.byte_begin;
      m["byte_end"] = v.evidence.byte_end;
    }
    if (v.evidence.has_index) m["retirement_index"] = v.evidence.retirement_index;
    r.metrics_json = m.dump();
    rows.push_back(std::move(r));
  }
  return rows;
}

db::RunRecord RunOutcome::ToRunRecord() const {
  db::RunRecord r;
  r.index = config.index;
  r.seed = config.seed;
  r.config_json = RunConfigToJson(config);
  r.status = status;
  r.image_name = image_name;
  r.image_sha256 = image_sha256;
  r.fabric = fabric;
  r.sink = sink;
  r.wall_ms = static_cast<int64_t>(wall_seconds * 1000.0);
  r.stream_sha256 = stream_sha256;
  if (!stream_sha256.empty()) r.stream_size = stream_size;
  r.counters_json = counters_json;
  r.metrics_json = metrics_json;
  return r;
}

std::string RunOutcome::ToJson(int indent) const {
  Json j;
  j["status"] = db::RunStatusName(status);
  j["reason"] = status_reason;
  j["config"] = Json::parse(RunConfigToJson(config));
  j["image"] = {{"name", image_name}, {"sha256_at_target", image_sha256}, {"build_id", build_id}};
  j["board"] = {{"kind", board_kind}, {"serial", board_serial}};
  const auto clock = [](const db::ClockReading& c) {
    return Json{{"requested_hz", c.requested_hz.value_or(0)},
                {"programmed_hz", c.programmed_hz.value_or(0)},
                {"read_back_hz", c.read_back_hz.value_or(0)}};
  };
  j["clocks"] = {{"fabric", clock(fabric)}, {"sink", clock(sink)}};
  Json vs = Json::array();
  for (const db::VerdictRecord& r : VerdictRecords()) {
    vs.push_back(Json{{"verdict", r.verdict}, {"outcome", db::OutcomeName(r.outcome)},
                      {"evidence", r.evidence}, {"metrics", Json::parse(r.metrics_json)},
                      {"doc", "docs/verdicts.md#" + r.verdict}});
  }
  j["verdicts"] = vs;
  j["stream"] = {{"sha256", stream_sha256}, {"size", stream_size}};
  if (!twin_stream_sha256.empty()) j["twin_stream_sha256"] = twin_stream_sha256;
  j["counters"] = counters_json.empty() ? Json() : Json::parse(counters_json);
  j["metrics"] = metrics_json.empty() ? Json() : Json::parse(metrics_json);
  j["wall_seconds"] = wall_seconds;
  return j.dump(indent);
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
  s += std::string("status: ") + db::RunStatusName(o.status);
  if (!o.status_reason.empty()) s += " (" + o.status_reason + ")";
  s += "\n";
  return s;
}

}  // namespace ctte::runner
