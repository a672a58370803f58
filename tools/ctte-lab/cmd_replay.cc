// `ctte-lab replay RUN [--lab lab.json [--board-name NAME]]`: re-executes a stored run (its
// seed, config, image and clocks) on a fresh simulated board or, with --lab, on the run's own lab
// board (tools/ctte-lab/lab_source.h), compares the new stream with the stored one ("bit-identical", or the first
// differing byte offset), re-judges and records the replay as a new run row with replay_of set
// (all of it runner/replay.h). Refuses when the image with the stored SHA-256 is not available.
// Exit: 0 bit-identical (or decode-equivalent on a real board), 1 replayed and the stream differs
// (decode-equivalent on a simulated board included), 2 usage error or could not replay
// (the lab failed during the replay: infra, named with its cause; nothing is stored).
#include <CLI/CLI.hpp>

#include <cinttypes>
#include <cstdio>

#include "base/output.h"
#include "runner/replay.h"
#include "tools/ctte-lab/command.h"
#include "tools/ctte-lab/lab_source.h"
#include "tools/ctte-lab/plan_flags.h"

namespace ctte::cli {
namespace {

struct ReplayFlags {
  int64_t run_id = 0;
  std::string db_path = "out/ctte.db";
  std::string waves;
  std::string image_dir = DefaultImageDir();
  std::string workload_dir = DefaultWorkloadDir();
  std::string board_path;
  BoardSourceFlags lab;
  std::string artifacts;
  bool json = false;
};

int RunReplay(const ReplayFlags& f) {
  runner::ReplayOptions o;
  o.db_path = f.db_path;
  o.execute.image_dir = f.image_dir;
  o.execute.workload_dir = f.workload_dir;
  o.execute.fst_path = f.waves;
  o.artifacts_dir = f.artifacts;
  lab::RemoteBoardOptions child;
  child.board_path = f.board_path.empty() ? BoardPathNextToSelf() : f.board_path;
  Result<runner::BoardSource> source = BoardSourceOf(f.lab, child);
  if (!source.ok()) {
    std::fprintf(stderr, "ctte-lab replay: %s\n", source.status().message().c_str());
    return kExitUsage;
  }
  o.boards = *source;
  o.board_chosen = !f.lab.board_name.empty();
  if (!f.waves.empty()) {  // an unusable waveform path is a usage error, before any board
    // The board writes the FST itself; the path follows base/output.h's rule all the same: no
    // FIFO, symlink, device or folder at it, and its folder must exist.
    if (Status st = CheckOutputPath(f.waves); !st.ok()) {
      std::fprintf(stderr, "ctte-lab replay: --waves: %s\n", st.ToString().c_str());
      return kExitUsage;
    }
  }
  Result<runner::ReplayResult> r = runner::ReplayRun(f.run_id, o);
  if (!r.ok()) {
    std::fprintf(stderr, "ctte-lab replay: %s\n", r.status().message().c_str());
    return kExitUsage;
  }
  if (f.json) {
    std::printf("%s\n", r->ToJson().c_str());
  } else if (!r->replayed) {
    std::printf("replay of run %" PRId64 " (%s #%" PRIu64 ", seed %s): not recorded\n",
                r->stored_run_id, r->campaign_name.c_str(), r->index,
                runner::SeedHex(r->seed).c_str());
    std::printf("stream: not compared: %s\n", r->comparison.c_str());
  } else {
    std::printf("replay of run %" PRId64 " (%s #%" PRIu64 ", seed %s), recorded as run %" PRId64
                "\n",
                r->stored_run_id, r->campaign_name.c_str(), r->index,
                runner::SeedHex(r->seed).c_str(), r->replay_run_id);
    std::printf("board:  %s (%s %s)\n", r->board_name.c_str(), r->outcome.board_kind.c_str(),
                r->outcome.board_serial.c_str());
    std::printf("stream: %s\n", r->comparison.c_str());
    std::printf("content: image from the %s, ELF sha256 %s from the %s\n",
                r->image_source.c_str(), r->workload_sha256.c_str(), r->workload_source.c_str());
    std::printf("%s", runner::FormatOutcome(r->outcome).c_str());
    std::printf("stored status: %s\n", db::RunStatusName(r->stored_status));
  }
  if (!r->replayed) {
    std::fprintf(stderr, "ctte-lab replay: %s\n", r->comparison.c_str());
    return kExitUsage;
  }
  if (r->identical) return kExitOk;
  if (r->decode_equivalent) {
    // A real board that cannot reproduce bytes reproduced the run; a simulator must reproduce
    // its bytes, so there the difference stands.
    if (!runner::IsSimulatedBoardKind(r->outcome.board_kind)) return kExitOk;
    std::fprintf(stderr, "ctte-lab replay: decode-equivalent on a simulated board (%s), which "
                         "reproduces bytes: the stream differs\n", r->outcome.board_kind.c_str());
  }
  return kExitRed;
}

}  // namespace

Command ReplayCommand() {
  return Command{
    "replay", "Re-execute a stored run and compare its stream bit for bit; re-judge; record it",
    [](CLI::App& sub) -> std::function<int()> {
      auto f = std::make_shared<ReplayFlags>();
      sub.add_option("run", f->run_id, "run id (runs.id)")->required();
      sub.add_option("--db", f->db_path, "database file (default out/ctte.db)");
      sub.add_option("--waves", f->waves, "write an FST waveform of the replay here");
      sub.add_option("--image-dir", f->image_dir, "image manifests");
      sub.add_option("--workload-dir", f->workload_dir, "workload ELFs");
      sub.add_option("--board", f->board_path, "the ctte-board executable");
      AddLabFlags(&sub, &f->lab, "replay on the run's own board (by its stored identity)");
      sub.add_option("--artifacts", f->artifacts,
                     "artifact store to fall back on for the run's image and ELF (default "
                     "<db>.artifacts; \"none\": the build tree only)");
      sub.add_flag("--json", f->json, "print JSON");
      return [f] { return RunReplay(*f); };
    }};
}

}  // namespace ctte::cli
