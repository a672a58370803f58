// `ctte-lab bisect RUN` and `ctte-lab triage RUN` (docs/triage.md): thin over runner/triage.h.
// bisect exit: 0 done (any verdict but infrastructure), 2 usage/input or infrastructure.
// triage exit: 0 classified, 2 usage/input or infrastructure.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>

#include "db/database.h"
#include "db/triage_store.h"
#include "reports/triage_text.h"
#include "runner/triage.h"
#include "tools/ctte-lab/command.h"
#include "tools/ctte-lab/flag_checks.h"
#include "tools/ctte-lab/lab_source.h"
#include "tools/ctte-lab/plan_flags.h"

namespace ctte::cli {
namespace {

// A bisection or triage that stopped on infrastructure exits as every command does for an
// infrastructure error (README "Exit codes": 2); 3 is a judged run's invalid measurement.
constexpr int kExitInfra = kExitUsage;

struct TriageFlags {
  int64_t run_id = 0;
  runner::TriageOptions o;
  unsigned boards = 1;
  std::string image_dir = DefaultImageDir();
  std::string workload_dir = DefaultWorkloadDir();
  std::string board_path;
  BoardSourceFlags lab;
  bool json = false;
};

// The legs' boards: --boards local children, or the lab's (--lab, --board-name).
Status Prepare(TriageFlags& f) {
  f.o.pool.execute.image_dir = f.image_dir;
  f.o.pool.execute.workload_dir = f.workload_dir;
  lab::RemoteBoardOptions child;
  child.board_path = f.board_path.empty() ? BoardPathNextToSelf() : f.board_path;
  Result<runner::BoardSource> source = BoardSourceOf(f.lab, child, f.boards);
  if (!source.ok()) return source.status();
  f.o.pool.boards = *source;
  return Status::Ok();
}

// The stored record, as `show` prints it.
void PrintStored(const std::string& db_path, int64_t run_id, int64_t id) {
  auto db = db::Database::OpenReadOnly(db_path);
  if (!db.ok()) return;
  auto all = db::TriageStore::BisectionsOfRun(**db, run_id);
  if (!all.ok()) return;
  for (const db::BisectionRecord& b : *all) {
    if (b.id == id) std::printf("%s", reports::FormatBisection(b).c_str());
  }
}

int RunBisect(TriageFlags& f) {
  if (Status st = Prepare(f); !st.ok()) {
    std::fprintf(stderr, "ctte-lab bisect: %s\n", st.message().c_str());
    return kExitUsage;
  }
  Result<runner::BisectRunResult> r = runner::BisectRun(f.run_id, f.o);
  if (!r.ok()) {
    std::fprintf(stderr, "ctte-lab bisect: %s\n", r.status().message().c_str());
    return kExitUsage;
  }
  if (f.json) {
    std::printf("%s\n", r->ToJson().c_str());
  } else {
    std::printf("bisect run %lld against baseline %s: %zu differing factor(s)\n",
                static_cast<long long>(f.run_id), r->baseline_source.c_str(),
                r->result.differing.size());
    for (const runner::Factor& d : r->result.differing) {
      std::printf("  %-16s red %-16s baseline %s\n", d.name.c_str(), d.red_value.c_str(),
                  d.base_value.c_str());
    }
    PrintStored(f.o.db_path, f.run_id, r->bisection_id);
  }
  return r->result.verdict == runner::BisectVerdict::kInfrastructure ? kExitInfra : kExitOk;
}

int RunTriage(TriageFlags& f) {
  if (Status st = Prepare(f); !st.ok()) {
    std::fprintf(stderr, "ctte-lab triage: %s\n", st.message().c_str());
    return kExitUsage;
  }
  Result<runner::TriageRunResult> r = runner::TriageRun(f.run_id, f.o);
  if (!r.ok()) {
    std::fprintf(stderr, "ctte-lab triage: %s\n", r.status().message().c_str());
    return kExitUsage;
  }
  if (f.json) std::printf("%s\n", r->ToJson().c_str());
  else PrintStored(f.o.db_path, f.run_id, r->bisection_id);
  return r->classification == runner::TriageClass::kInfrastructure ? kExitInfra : kExitOk;
}

void AddCommon(CLI::App& sub, TriageFlags& f, const char* repeats_help) {
  sub.add_option("run", f.run_id, "the red run (runs.id)")->required();
  sub.add_option("--repeats", f.o.repeats, repeats_help)->check(UnsignedIn(1, 1000));
  sub.add_option("--db", f.o.db_path, "database file (default out/ctte.db)");
  sub.add_option("--image-dir", f.image_dir, "image manifests");
  sub.add_option("--workload-dir", f.workload_dir, "workload ELFs");
  sub.add_option("--board", f.board_path, "the ctte-board executable");
  sub.add_option("--artifacts", f.o.artifacts_dir,
                 "artifact store to fall back on for the run's image and ELF (default "
                 "<db>.artifacts; \"none\": the build tree only)");
  AddLabFlags(&sub, &f.lab, "the legs run on its boards (triage: the run's own and another)");
  sub.add_flag("--json", f.json, "print JSON");
}

}  // namespace

Command BisectCommand() {
  return Command{
    "bisect", "Which factor of a red run matters: paired exact tests, Holm-corrected",
    [](CLI::App& sub) -> std::function<int()> {
      auto f = std::make_shared<TriageFlags>();
      f->o.repeats = f->o.bisect.repeats;
      AddCommon(sub, *f,
                "runs per leg with fresh model seeds at the first look, 1..1000 (default 10)");
      sub.add_option("--max-repeats", f->o.bisect.max_repeats,
                     "undecided legs get doubled repeats up to this many, 1..1000 (default 40)")
          ->check(UnsignedIn(1, 1000));
      sub.add_option("--baseline", f->o.baseline,
                     "known-green baseline: a RunConfig JSON file, auto (nearest green run of "
                     "the campaign, else the spec) or spec (each axis's first value)");
      sub.add_option("--boards", f->boards, "boards in parallel, 1..64 (default 1)")
          ->check(UnsignedIn(1, 64));
      sub.add_option("--max-pairs", f->o.bisect.max_pairs,
                     "pair legs at most, when no single leg flips (default 28)")
          ->check(UnsignedIn(0, 1000));
      sub.add_option("--out-dir", f->o.out_dir,
                     "where the minimal configuration is written (default out/triage)");
      return [f] { return RunBisect(*f); };
    }};
}
Command TriageCommand() {
  return Command{
    "triage", "Design, board-specific or flaky: a red run on its board and on another",
    [](CLI::App& sub) -> std::function<int()> {
      auto f = std::make_shared<TriageFlags>();
      AddCommon(sub, *f, "runs per board with fresh model seeds, 1..1000 (default 5)");
      return [f] { return RunTriage(*f); };
    }};
}

}  // namespace ctte::cli
