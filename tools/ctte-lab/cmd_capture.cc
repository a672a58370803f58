// `ctte-lab capture`: one capture on a simulated board run as a child process (ctte-board next
// to ctte-lab), or on a lab board (--lab lab.json [--board-name NAME], docs/lab.md). The flags become a RunConfig and a plan (runner/cli_config.h, runner/plan.h) and
// the capture is one board session (runner/board_session.h: deploy with the SHA-256 verified at
// the target and the build id read back, both clocks programmed and read back, closure gate,
// read-back tolerance, run), the same session `run`, `soak` and `replay` use. Writes the
// captured bytes and prints clocks, image hash, counters, byte count and ring status.
// --expected-pcs writes the reference PC sequence of the same run (from the ISS), one
// "0x80000000" per line.
// Exit: 0 ok; 1 the RTL fired an assertion; 2 usage or infrastructure error (including the
// closure gate); 3 the measurement is invalid: the capture ring wrapped (bytes are written), or
// a clock read back outside tolerance (nothing ran, no bytes).
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cinttypes>
#include <cstdio>
#include <memory>

#include "base/files.h"
#include "base/text.h"
#include "lab/remote_board.h"
#include "lab/wire.h"
#include "runner/board_session.h"
#include "runner/board_worker.h"
#include "runner/plan.h"
#include "tools/ctte-lab/command.h"
#include "tools/ctte-lab/lab_source.h"
#include "tools/ctte-lab/plan_flags.h"

namespace ctte::cli {
namespace {

// The shared capture options (tools/ctte-lab/plan_flags.h) plus the capture's own outputs.
struct CaptureFlags : PlanFlags {
  std::string out, expected_pcs;
  BoardSourceFlags lab;
};

int Fail(const char* what, const Status& s) {
  std::fprintf(stderr, "ctte-lab capture: %s: %s\n", what, s.ToString().c_str());
  return kExitUsage;
}

struct Clock {
  const char* name;
  const db::ClockReading& r;
};

void PrintJson(const CaptureFlags& f, const std::string& image, const runner::BoardSession& s) {
  const lab::Capture& cap = s.capture;
  nlohmann::ordered_json j;
  j["image"] = {{"name", image}, {"sha256_at_target", s.receipt.sha256},
                {"build_id", s.receipt.build_id}, {"manifest", f.manifest}};
  for (const Clock& c : {Clock{"fabric", s.fabric}, Clock{"sink", s.sink}}) {
    j["clocks"][c.name] = {{"requested_hz", c.r.requested_hz.value_or(0)},
                           {"programmed_hz", c.r.programmed_hz.value_or(0)},
                           {"read_back_hz", c.r.read_back_hz.value_or(0)}};
  }
  j["counters"] = lab::wire::ToJson(cap.counters);
  j["bytes_captured"] = cap.bytes.size();
  j["bytes_received"] = cap.bytes_received;
  j["ring_wrapped"] = cap.ring_wrapped;
  j["te_empty"] = cap.te_empty;
  j["drained"] = cap.drained;
  j["fabric_cycles"] = cap.fabric_cycles;
  j["sink_cycles"] = cap.sink_cycles;
  j["sim_time_ps"] = cap.sim_time_ps;
  j["beats"] = cap.beats;
  j["retired"] = cap.retired;
  j["core_stop"] = cap.core_stop;
  j["out"] = f.out;
  std::printf("%s\n", j.dump(2).c_str());
}

void PrintText(const CaptureFlags& f, const std::string& image, const runner::BoardSession& s) {
  const lab::Capture& cap = s.capture;
  const lab::Counters& k = cap.counters;
  std::printf("image:        %s  sha256 at target %s  build id %s\n", image.c_str(),
              s.receipt.sha256.c_str(), Hex64(s.receipt.build_id).c_str());
  for (const Clock& c : {Clock{"fabric", s.fabric}, Clock{"sink", s.sink}}) {
    std::printf("clock %-6s  requested %" PRIu64 " Hz, programmed %" PRIu64
                " Hz, read back %" PRIu64 " Hz\n", c.name, c.r.requested_hz.value_or(0),
                c.r.programmed_hz.value_or(0), c.r.read_back_hz.value_or(0));
  }
  std::printf("core:         %" PRIu64 " beats, %" PRIu64 " retired, %s\n", cap.beats,
              cap.retired, cap.core_stop.c_str());
  std::printf("counters:     messages %u, bytes %u, overflow episodes %u, records dropped %u, "
              "half-words retired %u\n", k.messages, k.bytes, k.overflow_episodes,
              k.records_dropped, k.halfwords_retired);
  std::printf("capture:      %zu bytes written to %s (sink received %" PRIu64 ")\n",
              cap.bytes.size(), f.out.c_str(), cap.bytes_received);
  std::printf("ring:         %s\n", cap.ring_wrapped ? "WRAPPED (oldest bytes lost; invalid)"
                                                    : "not wrapped");
  std::printf("drain:        trTeEmpty=%d after %" PRIu64 " sink cycles%s\n", cap.te_empty,
              cap.drain_sink_cycles, cap.drained ? "" : " (drain budget exhausted)");
  std::printf("cycles:       fabric %" PRIu64 ", sink %" PRIu64 ", simulated %.3f us\n",
              cap.fabric_cycles, cap.sink_cycles, static_cast<double>(cap.sim_time_ps) / 1e6);
}

int RunCapture(const CaptureFlags& f) {
  runner::PlanOptions o;
  o.build_reference = false;
  Result<runner::RunConfig> config = runner::RunConfigFromFlags(f, &o);
  if (!config.ok()) return Fail("usage", config.status());
  Result<runner::PreparedRun> run = runner::PrepareRun(*config, o);
  if (!run.ok()) return Fail("usage", run.status());
  if (run->fabric_hz == 0) return Fail("--fabric-mhz", Status::InvalidArgument("no clock given"));

  // The board: a local child, or a lab board (the inventory's first, or --board-name's).
  lab::RemoteBoardOptions bo;
  bo.board_path = BoardPathNextToSelf();
  Result<runner::BoardSource> source = BoardSourceOf(f.lab, bo);
  if (!source.ok()) return Fail("usage", source.status());
  if (source->lab()) *source = source->Only(0);
  runner::BoardWorker board(*source, 0, nullptr, o.ring_bytes);
  if (Status st = board.Open(); !st.ok()) return Fail(board.name().c_str(), st);
  const runner::BoardSession s = runner::RunBoardSession(
      board.board(), run->manifest, run->fabric_hz, run->sink_hz, run->plan,
      runner::SessionOptions{});
  board.Close();
  if (source->lab()) std::fprintf(stderr, "ctte-lab capture: on %s\n", board.name().c_str());
  switch (s.end) {
    case runner::BoardSession::End::kCaptured: break;
    case runner::BoardSession::End::kInfra:
      std::fprintf(stderr, "ctte-lab capture: %s\n", s.reason.c_str());
      return kExitUsage;
    case runner::BoardSession::End::kInvalid:
      std::fprintf(stderr, "ctte-lab capture: invalid measurement: %s\n", s.reason.c_str());
      return kExitInvalid;
    case runner::BoardSession::End::kRtlAssertion:
      std::fprintf(stderr, "ctte-lab capture: run: %s\n", s.reason.c_str());
      return kExitRed;
  }
  const lab::Capture& cap = s.capture;
  if (Status st = WriteFileAtomic(f.out, cap.bytes); !st.ok()) return Fail("--out", st);
  if (!f.expected_pcs.empty()) {
    if (Status st = runner::WriteReferencePcs(*run, f.expected_pcs); !st.ok()) {
      return Fail("--expected-pcs", st);
    }
  }
  if (f.json) {
    PrintJson(f, run->manifest.name, s);
  } else {
    PrintText(f, run->manifest.name, s);
  }
  return cap.ring_wrapped ? kExitInvalid : kExitOk;
}

}  // namespace

Command CaptureCommand() {
  return Command{
    "capture", "Capture one trace on a simulated board (child process) and write the bytes",
    [](CLI::App& sub) -> std::function<int()> {
      auto f = std::make_shared<CaptureFlags>();
      AddPlanOptions(sub, *f, /*required=*/true);
      sub.add_option("--out", f->out, "write the captured bytes here")->required();
      sub.add_option("--expected-pcs", f->expected_pcs, "write the reference PC sequence here");
      AddLabFlags(&sub, &f->lab, "capture on its first board, or --board-name's");
      return [f] { return RunCapture(*f); };
    }};
}

}  // namespace ctte::cli
