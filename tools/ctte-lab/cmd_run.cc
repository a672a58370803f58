// `ctte-lab run`: capture + reference + decode + judge for one configuration, on a simulated
// board run as a child process (and the determinism twin on a second one with --twin). Takes the
// capture options (tools/ctte-lab/plan_flags.h, turned into a RunConfig by runner/cli_config.h)
// or a RunConfig file (--config FILE, as printed by `campaign draw --json` or in `run --json`'s
// "config"). Prints the eight verdicts with evidence (docs/verdicts.md). `--board zynq
// [--sysroot DIR] [--emulated-fabric]` runs the child as `ctte-board --board zynq`
// (docs/zynq-board.md).
// Exit: 0 green, 1 red, 2 usage or infrastructure error, 3 invalid measurement.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <memory>

#include "base/files.h"
#include "lab/remote_board.h"
#include "runner/cli_config.h"
#include "runner/board_worker.h"
#include "runner/execute.h"
#include "tools/ctte-lab/command.h"
#include "tools/ctte-lab/lab_source.h"
#include "tools/ctte-lab/plan_flags.h"

namespace ctte::cli {
namespace {

struct RunFlags {
  PlanFlags plan;
  std::string config_file, image_dir = DefaultImageDir();
  std::string workload_dir = DefaultWorkloadDir(), stream_out;
  bool twin = false;
  std::string board = "sim", sysroot;
  bool emulated_fabric = false;
  BoardSourceFlags lab;
};

int Usage(const Status& s) {
  std::fprintf(stderr, "ctte-lab run: %s\n", s.ToString().c_str());
  return kExitUsage;
}

int RunRun(const RunFlags& f) {
  runner::ExecuteOptions o;
  o.image_dir = f.image_dir;
  o.workload_dir = f.workload_dir;
  runner::RunConfig config;
  if (!f.config_file.empty()) {
    Result<std::string> text = ReadFileText(f.config_file);
    if (!text.ok()) return Usage(text.status());
    Result<runner::RunConfig> c = runner::RunConfigFromJson(*text);
    if (!c.ok()) return Usage(Status::InvalidArgument(f.config_file + ": " + c.status().message()));
    config = *c;
    runner::PlanOptionsFromFlags(f.plan, &o);
  } else {
    Result<runner::RunConfig> c = runner::RunConfigFromFlags(f.plan, &o);
    if (!c.ok()) return Usage(c.status());
    config = *c;
  }
  Result<runner::PreparedRun> prepared = runner::PrepareRun(config, o);
  if (!prepared.ok()) return Usage(prepared.status());

  lab::RemoteBoardOptions bo;
  bo.board_path = BoardPathNextToSelf();
  if (f.board == "zynq") {
    // The board child runs ZynqBoard (docs/zynq-board.md); one board: no twin on one fabric.
    if (f.twin) return Usage(Status::InvalidArgument("--twin needs two boards; --board zynq is one"));
    bo.args = {"--stdio", "--board", "zynq"};
    if (!f.sysroot.empty()) bo.args.insert(bo.args.end(), {"--sysroot", f.sysroot});
    if (f.emulated_fabric) bo.args.push_back("--emulated-fabric");
  } else if (!f.sysroot.empty() || f.emulated_fabric) {
    return Usage(Status::InvalidArgument("--sysroot and --emulated-fabric need --board zynq"));
  }
  if (!f.lab.lab.empty() && f.board != "sim") {
    return Usage(Status::InvalidArgument("--board " + f.board + " is a local child; --lab names "
                                         "lab boards (choose one with --board-name)"));
  }
  // The board: a local child (a second one for --twin), or a lab board: --board-name's, else
  // the inventory's first; --twin on the lab runs the twin on the same board afterwards.
  Result<runner::BoardSource> source = BoardSourceOf(f.lab, bo, f.twin ? 2 : 1);
  if (!source.ok()) return Usage(source.status());
  if (source->lab()) *source = source->Only(0);
  runner::BoardWorker board(*source, 0, nullptr, o.ring_bytes);
  if (Status st = board.Open(); !st.ok()) {
    return Usage(Status::Unavailable(board.name() + ": " + st.ToString()));
  }
  std::unique_ptr<runner::BoardWorker> twin_board;
  lab::Board* twin = nullptr;
  if (f.twin && source->lab()) {
    twin = &board.board();
  } else if (f.twin) {
    twin_board = std::make_unique<runner::BoardWorker>(*source, 1, nullptr, o.ring_bytes);
    if (Status st = twin_board->Open(); !st.ok()) return Usage(st);
    twin = &twin_board->board();
  }
  const std::string board_name = board.name() + " (" + board.identity().kind + " " +
                                 board.identity().serial + ")";
  runner::RunOutcome out = runner::ExecuteRun(*prepared, board.board(), twin, o);
  board.Close();
  if (twin_board) twin_board->Close();
  if (!f.stream_out.empty() && !out.stream.empty()) {
    if (Status s = WriteFileAtomic(f.stream_out, out.stream); !s.ok()) return Usage(s);
  }
  if (f.plan.json) {
    nlohmann::ordered_json j = nlohmann::ordered_json::parse(out.ToJson());
    j["board"]["name"] = board.name();  // beside the outcome's kind and serial
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("board:  %s\n", board_name.c_str());
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
    const oracle::RunMetrics& m = out.metrics;
    std::printf("bits:   capture %.1f messages per 1000 instructions; reference encoder on the "
                "same beats %.2f payload / %.2f wire bits per instruction, %.1f messages per "
                "1000 (capture / reference wire bits %.3f)\n",
                m.messages_per_kilo_instruction, m.reference_payload_bits_per_instruction,
                m.reference_wire_bits_per_instruction,
                m.reference_messages_per_kilo_instruction,
                m.reference_wire_bits_per_instruction == 0
                    ? 0.0
                    : m.wire_bits_per_instruction / m.reference_wire_bits_per_instruction);
    std::printf("rate:   offered output peak %.2f / mean %.2f bits per instruction over %llu-"
                "instruction windows (peak / mean %.2f)\n",
                m.output_rate.PeakBitsPerInstruction(), m.output_rate.MeanBitsPerInstruction(),
                static_cast<unsigned long long>(m.output_rate.window_instructions),
                m.output_rate.PeakToMean());
    std::printf("%s", runner::FormatOutcome(out).c_str());
  }
  switch (out.status) {
    case runner::RunStatus::kGreen: return kExitOk;
    case runner::RunStatus::kRed: return kExitRed;
    case runner::RunStatus::kInvalid: return kExitInvalid;
    case runner::RunStatus::kInfra: return kExitUsage;
  }
  return kExitUsage;
}

}  // namespace

Command RunCommand() {
  return Command{
    "run", "Capture, decode and judge one configuration: the eight verdicts",
    [](CLI::App& sub) -> std::function<int()> {
      auto f = std::make_shared<RunFlags>();
      AddPlanOptions(sub, f->plan, /*required=*/false);
      sub.add_option("--config", f->config_file,
                     "a RunConfig JSON (as printed by `campaign draw --json`)");
      sub.add_option("--image-dir", f->image_dir, "image manifests for --config");
      sub.add_option("--workload-dir", f->workload_dir, "workload ELFs for --config");
      sub.add_option("--window-start", f->plan.window_start,
                     "open the trace window at this retirement")
          ->check(Unsigned());
      sub.add_option("--pause", f->plan.pause, "pause tracing at this retirement (with --resume)")
          ->check(Unsigned());
      sub.add_option("--resume", f->plan.resume, "resume tracing at this retirement")
          ->check(Unsigned());
      sub.add_option("--stop", f->plan.stop, "stop (trTeEnable=0, flush) at this retirement")
          ->check(Unsigned());
      sub.add_option("--stream-out", f->stream_out, "write the captured bytes here");
      sub.add_flag("--twin", f->twin, "run the determinism twin on a second board");
      sub.add_option("--board", f->board, "board child: sim (default) or zynq (ctte-board --board)")
          ->check(CLI::IsMember({"sim", "zynq"}));
      sub.add_option("--sysroot", f->sysroot, "zynq: the board's root prefix (default /)");
      sub.add_flag("--emulated-fabric", f->emulated_fabric,
                   "zynq: registers served by the fabric emulator (tests)");
      AddLabFlags(&sub, &f->lab, "run on its first board, or --board-name's");
      return [f] { return RunRun(*f); };
    }};
}

}  // namespace ctte::cli
