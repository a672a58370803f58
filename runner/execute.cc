// ExecuteRun: session on the main board, then on the twin, then decode and judge.
#include "runner/execute.h"

#include <chrono>
#include <span>

#include "base/sha256.h"
#include "oracle/judges.h"

namespace ctte::runner {

oracle::CaptureFacts ToCaptureFacts(const lab::Capture& c, uint64_t drain_budget) {
  oracle::CaptureFacts f;
  f.messages = c.counters.messages;
  f.bytes = c.counters.bytes;
  f.overflow_episodes = c.counters.overflow_episodes;
  f.records_dropped = c.counters.records_dropped;
  f.halfwords_retired = c.counters.halfwords_retired;
  f.status = c.counters.status;
  f.control = c.counters.control;
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

RunOutcome ExecuteRun(const PreparedRun& run, lab::Board& board, lab::Board* twin_board,
                      const ExecuteOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  RunOutcome out;
  out.config = run.config;
  out.image_name = run.manifest.name;
  out.pins.workload = run.config.workload;
  out.pins.workload_path = run.workload_path;
  out.pins.workload_sha256 = run.workload_sha256;
  out.pins.generator_version = run.generator_version;
  const auto finish = [&]() -> RunOutcome {
    out.wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return std::move(out);
  };
  const auto session = [&](lab::Board& b) {
    return RunBoardSession(b, run.manifest, run.fabric_hz, run.sink_hz, run.plan, options);
  };
  BoardSession main = session(board);
  ApplySession(main, "", &out);
  if (!main.captured()) return finish();
  BoardSession twin;
  const bool has_twin = twin_board != nullptr;
  if (has_twin) {
    twin = session(*twin_board);
    ApplySession(twin, "twin: ", &out);
    if (!twin.captured()) return finish();
  }
  lab::Capture& cap = main.capture;
  out.stream = std::move(cap.bytes);
  out.stream_size = out.stream.size();
  out.stream_sha256 = Sha256Hex(std::span<const uint8_t>(out.stream));

  oracle::Observed obs;
  // The PC list is reserved for the reference's retired count (a capacity only: issue #17).
  const auto decode = [&](std::span<const uint8_t> bytes) {
    return oracle::DecodeForJudging(bytes, *run.program, run.expected.mode,
                                    run.expected.features, run.expected.xlen, 0, 0,
                                    run.expected.pcs.size());
  };
  obs.stream = decode(out.stream);
  obs.capture = ToCaptureFacts(cap, run.plan.drain_budget_sink_cycles);
  // The twin's decode: DecodeForJudging is a pure function of the bytes and the run's program,
  // mode, features and XLEN, so a twin stream equal to the main one (what a deterministic
  // encoder gives) is neither decoded nor held again: Observed::twin_is_stream (issue #17).
  const auto decode_twin = [&](const std::vector<uint8_t>& bytes) {
    if (bytes == out.stream) {
      obs.twin_is_stream = true;
    } else {
      obs.twin = decode(bytes);
    }
  };
  const auto twin_sha = [&](const std::vector<uint8_t>& bytes) {
    return obs.twin_is_stream ? out.stream_sha256 : Sha256Hex(std::span<const uint8_t>(bytes));
  };
  if (has_twin) {
    decode_twin(twin.capture.bytes);
    obs.twin_capture = ToCaptureFacts(twin.capture, run.plan.drain_budget_sink_cycles);
    out.twin_stream_sha256 = twin_sha(twin.capture.bytes);
  } else if (options.twin_stream.has_value()) {
    decode_twin(*options.twin_stream);
    out.twin_stream_sha256 = twin_sha(*options.twin_stream);
  }
  oracle::Judgement j = oracle::JudgeRun(run.expected, obs);
  out.verdicts = std::move(j.verdicts);
  out.metrics = std::move(j.metrics);
  ClassifyJudged(cap.ring_wrapped || (has_twin && twin.capture.ring_wrapped), cap.bytes_received,
                 run.plan.ring_bytes, &out);
  out.capture = std::move(cap);
  return finish();
}

}  // namespace ctte::runner
