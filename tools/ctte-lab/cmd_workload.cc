// `ctte-lab workload gen --seed S [knobs] --out FILE.elf`: writes a random RV64IMAC program that
// always terminates (oracle/program_gen.h).
#include <CLI/CLI.hpp>
#include <cinttypes>
#include <cstdio>
#include <memory>

#include "oracle/program_gen.h"
#include "tools/ctte-lab/command.h"

namespace ctte::cli {
namespace {

struct GenFlags {
  uint64_t seed = 1;
  oracle::ProgramGenOptions options;
  std::string out;
};

int RunGen(const GenFlags& f) {
  if (f.options.compressed_percent > 100 || f.options.indirect_per_mille > 1000 ||
      f.options.trap_per_mille > 1000 ||
      f.options.indirect_per_mille + f.options.trap_per_mille > 1000) {
    std::fprintf(stderr,
                 "ctte-lab workload gen: --compressed-percent must be <= 100 and "
                 "--indirect-per-mille + --trap-per-mille <= 1000\n");
    return kExitUsage;
  }
  const oracle::GeneratedProgram p = oracle::GenerateProgram(f.seed, f.options);
  const Status st = oracle::WriteElf(f.out, p.entry, p.segments, p.symbols);
  if (!st.ok()) {
    std::fprintf(stderr, "ctte-lab workload gen: %s\n", st.ToString().c_str());
    return kExitUsage;
  }
  std::printf("wrote %s: seed %" PRIu64 ", %zu code bytes, about %" PRIu64
              " dynamic instructions\n",
              f.out.c_str(), f.seed, p.segments[0].bytes.size(), p.estimated_dynamic);
  return kExitOk;
}

const Registrar kRegistrar{Command{
    "workload", "Workload tools: `workload gen` writes a seeded random RV64IMAC program", 41,
    [](CLI::App& sub) -> std::function<int()> {
      auto f = std::make_shared<GenFlags>();
      sub.require_subcommand(1);
      CLI::App* gen = sub.add_subcommand("gen", "Generate a random terminating RV64IMAC ELF");
      gen->add_option("--seed", f->seed, "generator seed")->required();
      gen->add_option("--out", f->out, "output ELF path")->required();
      gen->add_option("--size", f->options.size, "approximate static size in blocks");
      gen->add_option("--loop-depth", f->options.loop_depth, "maximum loop nesting (0..3)");
      gen->add_option("--call-depth", f->options.call_depth, "levels of the call graph");
      gen->add_option("--indirect-per-mille", f->options.indirect_per_mille,
                      "indirect jumps/calls per 1000 blocks");
      gen->add_option("--trap-per-mille", f->options.trap_per_mille,
                      "trapping instructions per 1000 blocks");
      gen->add_option("--compressed-percent", f->options.compressed_percent,
                      "share of compressed instructions");
      gen->add_option("--max-dynamic", f->options.max_dynamic,
                      "bound on the estimated dynamic instruction count");
      return [f] { return RunGen(*f); };
    }}};

}  // namespace
}  // namespace ctte::cli
