// `ctte-lab capture`: one capture on a simulated board run as a child process (ctte-board next
// to ctte-lab). Deploys the image named by a manifest (SHA-256 verified at the target, build id
// read back), programs and reads back the clocks, runs the workload, writes the captured bytes,
// and prints clocks, image hash, counters, byte count and ring status. --expected-pcs writes
// the reference PC sequence of the same run (from the ISS), one "0x80000000" per line.
// Exit: 0 ok, 1 the RTL fired an assertion, 2 usage or infrastructure error, 3 the capture
// ring wrapped (the measurement is invalid).
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <memory>

#include "base/files.h"
#include "base/random.h"
#include "lab/image_manifest.h"
#include "lab/remote_board.h"
#include "lab/wire.h"
#include "oracle/iss.h"
#include "oracle/program_image.h"
#include "tools/ctte-lab/command.h"
#include "tools/ctte-lab/plan_flags.h"

namespace ctte::cli {
namespace {

// The shared capture options (tools/ctte-lab/plan_flags.h) plus the capture's own outputs.
struct CaptureFlags : PlanFlags {
  std::string out, expected_pcs;
};

int Fail(const char* what, const Status& s) {
  std::fprintf(stderr, "ctte-lab capture: %s: %s\n", what, s.ToString().c_str());
  return kExitUsage;
}

// Builds the plan from the flags; InvalidArgument names the flag.
Result<lab::RunPlan> MakePlan(const CaptureFlags& f) {
  lab::RunPlan p;
  p.workload_elf = f.workload;
  p.iss.max_instructions = f.max_instructions;
  p.iss.interrupt_every = f.interrupt_every;
  Result<uint8_t> mode = ParseModeFlag(f.mode);
  if (!mode.ok()) return mode.status();
  p.encoder.mode = *mode;
  Result<uint8_t> sync = ParseSyncModeFlag(f.sync_mode);
  if (!sync.ok()) return sync.status();
  p.encoder.sync_mode = *sync;
  Result<uint32_t> period = ParseSyncPeriodFlag(f.sync_period);
  if (!period.ok()) return period.status();
  if (*period != 0) p.encoder.sync_max = static_cast<uint8_t>(*period - 4);
  Result<lab::BackpressureProfile> bp = SinkFromFlags(f);
  if (!bp.ok()) return bp.status();
  p.sink = *bp;
  Result<lab::StallPlan> stall = StallFromFlags(f);
  if (!stall.ok()) return stall.status();
  p.stall = *stall;
  p.model_seed = DeriveSeed(f.seed, "model");
  p.ring_bytes = f.ring_bytes;
  p.drain_budget_sink_cycles = f.drain_budget;
  p.fst_path = f.waves;
  return p;
}

Status WriteExpectedPcs(const lab::RunPlan& p, const std::string& path) {
  Result<oracle::ProgramImage> image = oracle::ProgramImage::Load(p.workload_elf);
  if (!image.ok()) return image.status();
  oracle::IssOptions o;
  o.max_instructions = p.iss.max_instructions;
  o.interrupt_at = p.iss.interrupt_at;
  o.interrupt_every = p.iss.interrupt_every;
  oracle::Iss iss(*image, o);
  std::string text;
  oracle::Retired r;
  char line[32];
  while (iss.Step(&r)) {
    if (!r.retires) continue;
    std::snprintf(line, sizeof line, "0x%" PRIx64 "\n", r.pc);
    text += line;
  }
  return WriteFileAtomic(path, text);
}

int RunCapture(const CaptureFlags& f) {
  Result<lab::ImageManifest> m = lab::ImageManifest::Load(f.manifest);
  if (!m.ok()) return Fail("--image", m.status());
  Result<lab::RunPlan> plan = MakePlan(f);
  if (!plan.ok()) return Fail("usage", plan.status());
  const double fabric_mhz = f.fabric_mhz > 0 ? f.fabric_mhz : m->fmax_mhz;
  if (!(fabric_mhz > 0)) return Fail("--fabric-mhz", Status::InvalidArgument("no clock given"));

  lab::RemoteBoardOptions bo;
  bo.board_path = BoardPathNextToSelf();
  Result<std::unique_ptr<lab::RemoteBoard>> spawned = lab::RemoteBoard::Spawn(bo);
  if (!spawned.ok()) return Fail("board", spawned.status());
  lab::RemoteBoard& board = **spawned;

  Result<lab::DeployReceipt> receipt = board.Deploy(m->ToDeployRequest());
  if (!receipt.ok()) return Fail("deploy", receipt.status());
  if (Status s = lab::CheckReceipt(*m, *receipt); !s.ok()) return Fail("deploy", s);

  struct Clock { const char* name; lab::ClockDomain d; uint64_t req, prog, read; };
  Clock clocks[2] = {
      {"fabric", lab::ClockDomain::kFabric, static_cast<uint64_t>(std::llround(fabric_mhz * 1e6)), 0, 0},
      {"sink", lab::ClockDomain::kSink, static_cast<uint64_t>(std::llround(f.sink_mhz * 1e6)), 0, 0}};
  for (Clock& c : clocks) {
    Result<uint64_t> prog = board.SetClock(c.d, c.req);
    if (!prog.ok()) return Fail(c.name, prog.status());
    Result<uint64_t> read = board.ReadClock(c.d);
    if (!read.ok()) return Fail(c.name, read.status());
    c.prog = *prog;
    c.read = *read;
  }
  if (m->fmax_mhz > 0 && static_cast<double>(clocks[0].read) > m->fmax_mhz * 1e6) {
    return Fail("--fabric-mhz", Status::InvalidArgument(
                                    "fabric clock " + std::to_string(clocks[0].read) +
                                    " Hz is above the image's declared fmax " +
                                    std::to_string(m->fmax_mhz) + " MHz (closure gate)"));
  }

  Result<lab::Capture> cap = board.Run(*plan);
  if (!cap.ok()) {
    const bool rtl = lab::ClassifyFailure(cap.status()) == lab::FailureKind::kRtlAssertion;
    std::fprintf(stderr, "ctte-lab capture: run: %s\n", cap.status().ToString().c_str());
    return rtl ? kExitRed : kExitUsage;
  }
  (void)board.Shutdown();
  if (Status s = WriteFileAtomic(f.out, cap->bytes); !s.ok()) return Fail("--out", s);
  if (!f.expected_pcs.empty()) {
    if (Status s = WriteExpectedPcs(*plan, f.expected_pcs); !s.ok()) {
      return Fail("--expected-pcs", s);
    }
  }

  const lab::Counters& k = cap->counters;
  if (f.json) {
    nlohmann::ordered_json j;
    j["image"] = {{"name", m->name}, {"sha256_at_target", receipt->sha256},
                  {"build_id", receipt->build_id}, {"manifest", f.manifest}};
    for (const Clock& c : clocks) {
      j["clocks"][c.name] = {{"requested_hz", c.req}, {"programmed_hz", c.prog},
                             {"read_back_hz", c.read}};
    }
    j["counters"] = lab::wire::ToJson(k);
    j["bytes_captured"] = cap->bytes.size();
    j["bytes_received"] = cap->bytes_received;
    j["ring_wrapped"] = cap->ring_wrapped;
    j["te_empty"] = cap->te_empty;
    j["drained"] = cap->drained;
    j["fabric_cycles"] = cap->fabric_cycles;
    j["sink_cycles"] = cap->sink_cycles;
    j["sim_time_ps"] = cap->sim_time_ps;
    j["beats"] = cap->beats;
    j["retired"] = cap->retired;
    j["core_stop"] = cap->core_stop;
    j["out"] = f.out;
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("image:        %s  sha256 at target %s  build id 0x%016" PRIx64 "\n",
                m->name.c_str(), receipt->sha256.c_str(), receipt->build_id);
    for (const Clock& c : clocks) {
      std::printf("clock %-6s  requested %" PRIu64 " Hz, programmed %" PRIu64
                  " Hz, read back %" PRIu64 " Hz\n", c.name, c.req, c.prog, c.read);
    }
    std::printf("core:         %" PRIu64 " beats, %" PRIu64 " retired, %s\n", cap->beats,
                cap->retired, cap->core_stop.c_str());
    std::printf("counters:     messages %u, bytes %u, overflow episodes %u, records dropped %u, "
                "half-words retired %u\n", k.messages, k.bytes, k.overflow_episodes,
                k.records_dropped, k.halfwords_retired);
    std::printf("capture:      %zu bytes written to %s (sink received %" PRIu64 ")\n",
                cap->bytes.size(), f.out.c_str(), cap->bytes_received);
    std::printf("ring:         %s\n", cap->ring_wrapped ? "WRAPPED (oldest bytes lost; invalid)"
                                                        : "not wrapped");
    std::printf("drain:        trTeEmpty=%d after %" PRIu64 " sink cycles%s\n", cap->te_empty,
                cap->drain_sink_cycles, cap->drained ? "" : " (drain budget exhausted)");
    std::printf("cycles:       fabric %" PRIu64 ", sink %" PRIu64 ", simulated %.3f us\n",
                cap->fabric_cycles, cap->sink_cycles, static_cast<double>(cap->sim_time_ps) / 1e6);
  }
  return cap->ring_wrapped ? kExitInvalid : kExitOk;
}

const Registrar kRegistrar{Command{
    "capture", "Capture one trace on a simulated board (child process) and write the bytes", 50,
    [](CLI::App& sub) -> std::function<int()> {
      auto f = std::make_shared<CaptureFlags>();
      AddPlanOptions(sub, *f, /*required=*/true);
      sub.add_option("--out", f->out, "write the captured bytes here")->required();
      sub.add_option("--expected-pcs", f->expected_pcs, "write the reference PC sequence here");
      return [f] { return RunCapture(*f); };
    }}};

}  // namespace
}  // namespace ctte::cli
