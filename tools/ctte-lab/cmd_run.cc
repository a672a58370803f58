// `ctte-lab run`: capture + reference + decode + judge for one configuration, on a simulated
// board run as a child process (and the determinism twin on a second one with --twin). Takes the
// capture options (tools/ctte-lab/plan_flags.h) or a drawn RunConfig (--config FILE, as printed
// by `campaign draw --json`). Prints the eight verdicts with evidence (docs/verdicts.md).
// Exit: 0 green, 1 red, 2 usage or infrastructure error, 3 invalid measurement.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <memory>

#include "base/files.h"
#include "lab/remote_board.h"
#include "runner/execute.h"
#include "tools/ctte-lab/command.h"
#include "tools/ctte-lab/plan_flags.h"

namespace ctte::cli {
namespace {

struct RunFlags {
  PlanFlags plan;
  std::string config_file, image_dir = CTTE_DEFAULT_IMAGE_DIR;
  std::string workload_dir = CTTE_DEFAULT_WORKLOAD_DIR, stream_out;
  bool twin = false;
  uint64_t window_start = 0, pause = 0, resume = 0, stop = 0;
};

int Usage(const Status& s) {
  std::fprintf(stderr, "ctte-lab run: %s\n", s.ToString().c_str());
  return kExitUsage;
}

// A RunConfig from the capture-style flags (campaign "cli", index 0).
Result<runner::RunConfig> ConfigFromFlags(const RunFlags& f, runner::ExecuteOptions* o) {
  const PlanFlags& p = f.plan;
  if (p.manifest.empty() || p.workload.empty()) {
    return Status::InvalidArgument("--image and --workload are required without --config");
  }
  Result<lab::ImageManifest> m = lab::ImageManifest::Load(p.manifest);
  if (!m.ok()) return m.status();
  runner::RunConfig c;
  c.campaign = "cli";
  c.seed = p.seed;
  c.image = m->name;
  c.workload = std::filesystem::path(p.workload).stem().string();
  Result<uint8_t> mode = ParseModeFlag(p.mode);
  if (!mode.ok()) return mode.status();
  c.mode = p.mode;
  Result<uint8_t> sm = ParseSyncModeFlag(p.sync_mode);
  if (!sm.ok()) return sm.status();
  Result<uint32_t> period = ParseSyncPeriodFlag(p.sync_period);
  if (!period.ok()) return period.status();
  if (*sm != 0) {
    c.sync_params.kind = *sm == 1 ? runner::SyncPolicy::Kind::kMessages
                                  : runner::SyncPolicy::Kind::kHalfwords;
    c.sync_params.period_log2 = *period == 0 ? 4 : *period;
    c.sync = std::string(*sm == 1 ? "messages:" : "halfwords:") +
             std::to_string(c.sync_params.period_log2);
  } else {
    c.sync = "off";
  }
  c.backpressure = p.backpressure;
  Result<lab::BackpressureProfile> sink = SinkFromFlags(p);
  if (!sink.ok()) return sink.status();
  Result<lab::StallPlan> stall = StallFromFlags(p);
  if (!stall.ok()) return stall.status();
  o->sink_override = *sink;
  o->stall_override = *stall;
  c.fabric_mhz = static_cast<uint32_t>(p.fabric_mhz);
  c.fabric_hz = static_cast<uint64_t>(std::llround(p.fabric_mhz * 1e6));
  c.sink_hz = static_cast<uint64_t>(std::llround(p.sink_mhz * 1e6));
  c.interrupt_every = p.interrupt_every;
  c.interrupts = p.interrupt_every ? "storm" : "none";
  c.window_start = f.window_start;
  c.window = "full";
  if (f.pause != 0 || f.resume != 0) {
    c.window_pause = f.pause;
    c.window_resume = f.resume;
    c.window = "pause_resume";
  }
  if (f.stop != 0) {
    c.window_stop = f.stop;
    c.window = "early_stop";
  }
  if (f.window_start != 0) c.window = "late_start";
  c.overflow_regime = "cli";
  o->manifest_path = p.manifest;
  o->workload_path = p.workload;
  return c;
}

int RunRun(const RunFlags& f) {
  runner::ExecuteOptions o;
  o.image_dir = f.image_dir;
  o.workload_dir = f.workload_dir;
  o.max_instructions = f.plan.max_instructions;
  o.ring_bytes = f.plan.ring_bytes;
  o.drain_budget_sink_cycles = f.plan.drain_budget;
  o.fst_path = f.plan.waves;
  runner::RunConfig config;
  if (!f.config_file.empty()) {
    Result<std::string> text = ReadFileText(f.config_file);
    if (!text.ok()) return Usage(text.status());
    Result<runner::RunConfig> c = runner::RunConfigFromJson(*text);
    if (!c.ok()) return Usage(Status::InvalidArgument(f.config_file + ": " + c.status().message()));
    config = *c;
    if (!f.plan.manifest.empty()) o.manifest_path = f.plan.manifest;
    if (!f.plan.workload.empty()) o.workload_path = f.plan.workload;
  } else {
    Result<runner::RunConfig> c = ConfigFromFlags(f, &o);
    if (!c.ok()) return Usage(c.status());
    config = *c;
  }
  Result<runner::PreparedRun> prepared = runner::PrepareRun(config, o);
  if (!prepared.ok()) return Usage(prepared.status());

  lab::RemoteBoardOptions bo;
  bo.board_path = BoardPathNextToSelf();
  Result<std::unique_ptr<lab::RemoteBoard>> board = lab::RemoteBoard::Spawn(bo);
  if (!board.ok()) return Usage(board.status());
  std::unique_ptr<lab::RemoteBoard> twin;
  if (f.twin) {
    Result<std::unique_ptr<lab::RemoteBoard>> t = lab::RemoteBoard::Spawn(bo);
    if (!t.ok()) return Usage(t.status());
    twin = std::move(*t);
  }
  runner::RunOutcome out = runner::ExecuteRun(*prepared, **board, twin.get(), o);
  (void)(*board)->Shutdown();
  if (twin) (void)twin->Shutdown();
  if (!f.stream_out.empty() && !out.stream.empty()) {
    if (Status s = WriteFileAtomic(f.stream_out, out.stream); !s.ok()) return Usage(s);
  }
  if (f.plan.json) {
    std::printf("%s\n", out.ToJson().c_str());
  } else {
    std::printf("run:    %s #%llu seed %s, image %s (sha256 at target %s, build id %s)\n",
                out.config.campaign.c_str(), static_cast<unsigned long long>(out.config.index),
                runner::SeedHex(out.config.seed).c_str(), out.image_name.c_str(),
                out.image_sha256.c_str(), out.build_id.c_str());
    std::printf("stream: %llu bytes, sha256 %s; %llu instructions in window, %llu decoded, "
                "%.2f payload / %.2f wire bits per instruction, %zu loss episodes\n",
                static_cast<unsigned long long>(out.stream_size), out.stream_sha256.c_str(),
                static_cast<unsigned long long>(out.metrics.reference_instructions),
                static_cast<unsigned long long>(out.metrics.decoded_instructions),
                out.metrics.payload_bits_per_instruction, out.metrics.wire_bits_per_instruction,
                out.metrics.episodes.size());
    std::printf("%s", runner::FormatOutcome(out).c_str());
  }
  switch (out.status) {
    case db::RunStatus::kGreen: return kExitOk;
    case db::RunStatus::kRed: return kExitRed;
    case db::RunStatus::kInvalid: return kExitInvalid;
    default: return kExitUsage;
  }
}

const Registrar kRegistrar{Command{
    "run", "Capture, decode and judge one configuration: the eight verdicts", 55,
    [](CLI::App& sub) -> std::function<int()> {
      auto f = std::make_shared<RunFlags>();
      AddPlanOptions(sub, f->plan, /*required=*/false);
      sub.add_option("--config", f->config_file,
                     "a RunConfig JSON (as printed by `campaign draw --json`)");
      sub.add_option("--image-dir", f->image_dir, "image manifests for --config");
      sub.add_option("--workload-dir", f->workload_dir, "workload ELFs for --config");
      sub.add_option("--window-start", f->window_start, "open the trace window at this retirement");
      sub.add_option("--pause", f->pause, "pause tracing at this retirement (with --resume)");
      sub.add_option("--resume", f->resume, "resume tracing at this retirement");
      sub.add_option("--stop", f->stop, "stop (trTeEnable=0, flush) at this retirement");
      sub.add_option("--stream-out", f->stream_out, "write the captured bytes here");
      sub.add_flag("--twin", f->twin, "run the determinism twin on a second board");
      return [f] { return RunRun(*f); };
    }}};

}  // namespace
}  // namespace ctte::cli
