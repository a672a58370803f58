// `ctte-lab workload gen --seed S [--xlen 32|64] [knobs] --out FILE.elf`: writes a random
// RV64IMAC (ELF64) or RV32IMAC (ELF32) program that always terminates (oracle/program_gen.h).
#include <CLI/CLI.hpp>
#include <cinttypes>
#include <cstdio>
#include <memory>

#include "oracle/program_gen.h"
#include "tools/ctte-lab/command.h"
#include "tools/ctte-lab/flag_checks.h"

namespace ctte::cli {
namespace {

constexpr uint64_t kMaxGenSize = 1'000'000;  ///< workload gen --size

struct GenFlags {
  uint64_t seed = 1;
  unsigned xlen = 64;
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
  oracle::ProgramGenOptions options = f.options;
  options.xlen = f.xlen == 32 ? oracle::Xlen::k32 : oracle::Xlen::k64;
  const oracle::GeneratedProgram p = oracle::GenerateProgram(f.seed, options);
  const Status st = oracle::WriteElf(f.out, p.entry, p.segments, p.symbols, p.xlen);
  if (!st.ok()) {
    std::fprintf(stderr, "ctte-lab workload gen: %s\n", st.ToString().c_str());
    return kExitUsage;
  }
  std::printf("wrote %s: %s, seed %" PRIu64 ", %zu code bytes, about %" PRIu64
              " dynamic instructions\n",
              f.out.c_str(), oracle::XlenName(p.xlen), f.seed, p.segments[0].bytes.size(),
              p.estimated_dynamic);
  return kExitOk;
}

}  // namespace

Command WorkloadCommand() {
  return Command{
    "workload", "Workload tools: `workload gen` writes a seeded random RV64IMAC or RV32IMAC program",
    [](CLI::App& sub) -> std::function<int()> {
      auto f = std::make_shared<GenFlags>();
      sub.require_subcommand(1);
      CLI::App* gen = sub.add_subcommand("gen", "Generate a random terminating RV64IMAC (or, --xlen 32, RV32IMAC) ELF");
      // Ranges (docs/reference-model.md): what the generator honours; it would silently clamp
      // --loop-depth above 3 and --call-depth above 8, and --size 0 makes an empty program.
      gen->add_option("--seed", f->seed, "generator seed (unsigned decimal)")
          ->required()
          ->check(Unsigned());
      gen->add_option("--out", f->out, "output ELF path")->required();
      gen->add_option("--xlen", f->xlen,
                      "register width: 64 (RV64IMAC, ELF64; the default) or 32 (RV32IMAC, ELF32)")
          ->check(CLI::IsMember({32u, 64u}));
      gen->add_option("--size", f->options.size, "approximate static size in blocks, 1..1000000")
          ->check(UnsignedIn(1, kMaxGenSize));
      gen->add_option("--loop-depth", f->options.loop_depth, "maximum loop nesting (0..3)")
          ->check(UnsignedIn(0, 3));
      gen->add_option("--call-depth", f->options.call_depth, "levels of the call graph (0..8)")
          ->check(UnsignedIn(0, 8));
      gen->add_option("--indirect-per-mille", f->options.indirect_per_mille,
                      "indirect jumps/calls per 1000 blocks")
          ->check(UnsignedIn(0, 1000));
      gen->add_option("--trap-per-mille", f->options.trap_per_mille,
                      "trapping instructions per 1000 blocks")
          ->check(UnsignedIn(0, 1000));
      gen->add_option("--compressed-percent", f->options.compressed_percent,
                      "share of compressed instructions (0..100)")
          ->check(UnsignedIn(0, 100));
      gen->add_option("--max-dynamic", f->options.max_dynamic,
                      "bound on the estimated dynamic instruction count, 1..10^9")
          ->check(UnsignedIn(1, kMaxInstructionsFlag));
      return [f] { return RunGen(*f); };
    }};
}

}  // namespace ctte::cli
