// The ISS tests' hand-assembled programs: run what an Assembler made, and the exit sequence.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "oracle/iss.h"
#include "oracle/iss_asm.h"
#include "oracle/program_image.h"

namespace ctte::oracle::test_support {

/// A hand-assembled program's run: the ISS (for its state afterwards) and every beat.
struct AsmRun {
  std::unique_ptr<Iss> iss;
  std::vector<Retired> beats;
};

/// Runs what `as` assembled, placed at the RAM base, on a core of `xlen` (at most 10 000
/// instructions unless `opts` says otherwise).
inline AsmRun Execute(Assembler& as, Xlen xlen, IssOptions opts = {}) {
  std::vector<uint8_t> code = as.Finish();
  const uint64_t base = ProgramImage::kRamBase;
  Segment seg{base, code.size(), true, code};
  ProgramImage image = ProgramImage::FromSegments(base, {seg}, {}, xlen);
  if (opts.max_instructions == IssOptions{}.max_instructions) opts.max_instructions = 10'000;
  AsmRun run{std::make_unique<Iss>(image, opts), {}};
  Retired r;
  while (run.iss->Step(&r)) run.beats.push_back(r);
  return run;
}
inline AsmRun Execute(Assembler& as, IssOptions opts = {}) {
  return Execute(as, Xlen::k64, opts);
}

/// Exit through the test device with the code in a0 (0 = pass).
inline void EmitExit(Assembler& as) {
  as.Li(reg::t0, 0x100000);
  as.Li(reg::t1, 0x5555);
  as.S(2, reg::t0, reg::t1, 0);
}

}  // namespace ctte::oracle::test_support
