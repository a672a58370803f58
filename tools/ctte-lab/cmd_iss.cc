// `ctte-lab iss ELF`: runs a program on the reference core model and prints a summary (its
// register width, from the ELF class; instructions retired, exit code, console text, itype
// counts); --pcs writes every retired instruction's PC, one "0x80000000" per line.
#include <CLI/CLI.hpp>
#include <array>
#include <cinttypes>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <nlohmann/json.hpp>

#include "base/output.h"
#include "base/text.h"
#include "oracle/iss.h"
#include "oracle/program_image.h"
#include "tools/ctte-lab/command.h"
#include "tools/ctte-lab/flag_checks.h"
#include "tools/ctte-lab/pcs_output.h"

namespace ctte::cli {
namespace {

struct IssFlags {
  std::string elf;
  uint64_t max_instructions = 50'000'000;
  std::vector<uint64_t> interrupts;
  uint64_t interrupt_every = 0;
  std::string pcs_path;
  bool json = false;
};

const char* StopName(oracle::StopReason r) {
  switch (r) {
    case oracle::StopReason::kRunning:
      return "running";
    case oracle::StopReason::kExited:
      return "exited";
    case oracle::StopReason::kMaxInstructions:
      return "max-instructions";
    case oracle::StopReason::kFatal:
      return "fatal";
  }
  return "?";
}

int RunIss(const IssFlags& f) {
  // --pcs through base/output.h: refused before the run (FIFO, symlink, device, missing
  // parent), streamed in chunks into a temporary file renamed over the target at the end, or
  // to standard output for "-" (the summary then goes to stderr; --json is refused).
  std::optional<PcsOutput> pcs_out =
      OpenPcsOutput("iss", f.pcs_path, f.json ? "--json" : nullptr);
  if (!pcs_out) return kExitUsage;
  FILE* const out = pcs_out->info;
  OutputFileWriter* const pcs = pcs_out->writer.get();
  Result<oracle::ProgramImage> image = oracle::ProgramImage::Load(f.elf);
  if (!image.ok()) {
    std::fprintf(stderr, "ctte-lab iss: %s\n", image.status().ToString().c_str());
    return kExitUsage;
  }
  oracle::IssOptions opts;
  opts.max_instructions = f.max_instructions;
  opts.interrupt_at = f.interrupts;
  opts.interrupt_every = f.interrupt_every;
  oracle::Iss iss(*image, opts);
  std::array<uint64_t, 16> itypes{};
  oracle::Retired r;
  // PCs are formatted in batches (AppendHexLines reuses the head of the previous line).
  std::array<uint64_t, 4096> batch;
  size_t nbatch = 0;
  while (iss.Step(&r)) {
    ++itypes[static_cast<size_t>(r.itype) & 15];
    if (pcs && r.retires) {
      batch[nbatch++] = r.pc;
      if (nbatch == batch.size()) {
        pcs->AppendHexLines(batch.data(), nbatch);
        nbatch = 0;
        if (pcs->reader_closed()) break;  // `| head` has what it wanted
      }
    }
  }
  if (pcs) {
    pcs->AppendHexLines(batch.data(), nbatch);
    if (Status s = pcs->Commit(); !s.ok()) {
      std::fprintf(stderr, "ctte-lab iss: --pcs: %s\n", s.ToString().c_str());
      return kExitUsage;
    }
    if (pcs->reader_closed()) return kExitOk;  // a quiet stop (docs/inputs-and-outputs.md)
  }
  const bool exited = iss.stop_reason() == oracle::StopReason::kExited;
  if (f.json) {
    nlohmann::ordered_json j;
    j["elf"] = f.elf;
    j["xlen"] = oracle::XlenBits(image->xlen());
    j["stop"] = StopName(iss.stop_reason());
    j["retired"] = iss.retired();
    j["beats"] = iss.beats();
    if (exited) j["exit_code"] = iss.exit_code();
    if (!iss.fatal_message().empty()) j["fatal"] = iss.fatal_message();
    j["console"] = iss.console();
    nlohmann::ordered_json counts = nlohmann::ordered_json::object();
    for (size_t i = 0; i < itypes.size(); ++i) {
      if (itypes[i] != 0) counts[std::to_string(i)] = itypes[i];
    }
    j["itype_counts"] = counts;
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::fprintf(out, "elf:          %s\n", f.elf.c_str());
    std::fprintf(out, "xlen:         %d (%s, from the ELF class)\n",
                 oracle::XlenBits(image->xlen()), oracle::XlenName(image->xlen()));
    std::fprintf(out, "stop:         %s\n", StopName(iss.stop_reason()));
    std::fprintf(out, "retired:      %" PRIu64 "\n", iss.retired());
    std::fprintf(out, "beats:        %" PRIu64 " (%" PRIu64 " trap beats)\n", iss.beats(),
                 iss.beats() - iss.retired());
    if (exited) std::fprintf(out, "exit code:    %d\n", iss.exit_code());
    if (!iss.fatal_message().empty())
      std::fprintf(out, "fatal:        %s\n", iss.fatal_message().c_str());
    std::fprintf(out, "itype counts:");
    for (size_t i = 0; i < itypes.size(); ++i) {
      if (itypes[i] != 0) std::fprintf(out, " %zu:%" PRIu64, i, itypes[i]);
    }
    std::fprintf(out, "\nconsole:\n%s", iss.console().c_str());
    if (!iss.console().empty() && iss.console().back() != '\n') std::fprintf(out, "\n");
  }
  if (iss.stop_reason() == oracle::StopReason::kFatal) return kExitUsage;
  return kExitOk;
}

}  // namespace

Command IssCommand() {
  return Command{
    "iss", "Run an ELF on the reference core model (RV64IMAC or RV32IMAC ISS) and summarise it",
    [](CLI::App& sub) -> std::function<int()> {
      auto f = std::make_shared<IssFlags>();
      sub.add_option("elf", f->elf, "RV64 (ELFCLASS64) or RV32 (ELFCLASS32) ELF to run")->required();
      sub.add_option("--max-instructions", f->max_instructions,
                     "stop after this many beats, 1..10^9")
          ->check(UnsignedIn(1, kMaxInstructionsFlag));
      auto* at = sub.add_option("--interrupts", f->interrupts,
                                "raise the machine software interrupt at these retirement "
                                "indices (comma separated)")
                     ->delimiter(',');
      sub.add_option("--interrupt-every", f->interrupt_every,
                     "raise the machine software interrupt every N retired instructions")
          ->check(Unsigned())
          ->excludes(at);
      sub.add_option("--pcs", f->pcs_path,
                     "write one hex PC per retired instruction to this file, or to standard "
                     "output for '-' (the summary then goes to stderr; --json is refused with "
                     "it; a reader that closes the pipe early ends the run quietly, exit 0)");
      sub.add_flag("--json", f->json, "print the summary as JSON");
      return [f] { return RunIss(*f); };
    }};
}

}  // namespace ctte::cli
