// ReferenceTrace (oracle/reference_trace.h): the reference encoder over a recorded ISS run is
// BuildExpected itself, for every budget (the stop rules), every encoder configuration and
// window sharing one trace, and the early stop's beat is the ISS's.
#include "oracle/reference_trace.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "asm_run.h"
#include "expected_equal.h"
#include "oracle/iss_asm.h"
#include "oracle/program_gen.h"

namespace ctte::oracle {
namespace {

using test_support::EmitExit;

// Both paths under `eo`, the trace recorded under `recorded` (same schedule, budget >= eo's).
void ExpectBothPathsEqual(const ProgramImage& image, const ReferenceTrace& trace,
                          const ExpectedOptions& eo, const std::string& what) {
  std::vector<uint64_t> direct_beats, trace_beats;
  const Expected direct = BuildExpected(image, eo, &direct_beats);
  const Expected shared = BuildExpectedFromTrace(trace, eo, &trace_beats);
  EXPECT_EQ(shared.image, nullptr);
  SCOPED_TRACE(what);
  test_support::ExpectSameExpected(shared, direct);
  EXPECT_EQ(trace_beats, direct_beats) << what;
}

ProgramImage Assembled(Assembler& as) {
  std::vector<uint8_t> code = as.Finish();
  const uint64_t base = ProgramImage::kRamBase;
  return ProgramImage::FromSegments(base, {Segment{base, code.size(), true, code}}, {},
                                    Xlen::k64);
}

// Three ways to stop: an exit (set while the last beat executes), a reset request through the
// test device (kFatal, also with the last beat), a fetch trap loop (kFatal in a step that yields
// no beat); and the budget of the recording itself.
TEST(ReferenceTrace, EveryBudgetStopsAsTheIss) {
  struct Case {
    const char* name;
    ProgramImage image;
    StopReason stop;
  };
  std::vector<Case> cases;
  cases.push_back({"generated, exits", GenerateProgram(3, ProgramGenOptions{}).ToImage(),
                   StopReason::kExited});
  {
    Assembler as(ProgramImage::kRamBase);
    as.Addi(reg::a0, reg::zero, 5);
    EmitExit(as);
    cases.push_back({"exit", Assembled(as), StopReason::kExited});
  }
  {
    Assembler as(ProgramImage::kRamBase);
    as.Li(reg::t0, 0x100000);
    as.Li(reg::t1, 0x7777);
    as.S(2, reg::t0, reg::t1, 0);
    cases.push_back({"reset request", Assembled(as), StopReason::kFatal});
  }
  {
    Assembler as(ProgramImage::kRamBase);
    as.Li(reg::t0, 0x1000);
    as.Csr(1, reg::zero, 0x305, reg::t0);  // mtvec -> unmapped
    as.Jalr(reg::zero, reg::t0, 0);
    cases.push_back({"fetch trap loop", Assembled(as), StopReason::kFatal});
  }
  for (const Case& c : cases) {
    IssOptions iss;
    iss.max_instructions = 1'000'000;
    const ReferenceTrace trace = RecordReferenceTrace(c.image, iss);
    ASSERT_EQ(trace.stop_reason, c.stop) << c.name;
    const uint64_t b = trace.beats.size();
    ASSERT_GT(b, 2u) << c.name;
    for (uint64_t budget : {uint64_t{0}, uint64_t{1}, b - 1, b, b + 1, iss.max_instructions}) {
      ExpectedOptions eo;
      eo.iss = iss;
      eo.iss.max_instructions = budget;
      ExpectBothPathsEqual(c.image, trace, eo, std::string(c.name) + " budget " +
                                                   std::to_string(budget));
    }
  }
  // The recording's own budget stops it: a trace of a longer program cut at 500 beats.
  const ProgramImage image = GenerateProgram(3, ProgramGenOptions{}).ToImage();
  IssOptions iss;
  iss.max_instructions = 500;
  const ReferenceTrace cut = RecordReferenceTrace(image, iss);
  EXPECT_EQ(cut.stop_reason, StopReason::kMaxInstructions);
  EXPECT_EQ(cut.beats.size(), 500u);
  for (uint64_t budget : {uint64_t{499}, uint64_t{500}}) {
    ExpectedOptions eo;
    eo.iss = iss;
    eo.iss.max_instructions = budget;
    ExpectBothPathsEqual(image, cut, eo, "cut at 500, budget " + std::to_string(budget));
  }
}

// One trace, many references: modes, sync, every feature, windows, stop-at-end, XLEN.
TEST(ReferenceTrace, EveryEncoderConfigOverOneTrace) {
  const ProgramImage image = GenerateProgram(11, ProgramGenOptions{}).ToImage();
  IssOptions iss;
  iss.max_instructions = 200'000;
  iss.interrupt_at = {40, 700, 1'900};
  iss.interrupt_every = 997;
  const ReferenceTrace trace = RecordReferenceTrace(image, iss);
  ASSERT_GT(trace.retired, 3'000u);
  int traps = 0, interrupts = 0;
  for (const TraceBeat& b : trace.beats) {
    traps += b.itype == IType::kException;
    interrupts += b.itype == IType::kInterrupt;
  }
  ASSERT_GT(traps, 0);
  ASSERT_GT(interrupts, 3);

  FeatureSet all;
  all.implicit_return_depth = 4;
  all.repeated_history = all.repeat_branch = all.sequential_jump = true;
  all.full_address = all.config_message = true;
  const std::vector<std::vector<RetirementEdge>> windows = {
      {}, {{500, true}}, {{100, true}, {800, false}, {1'500, true}}, {{0, true}, {10, false}}};
  int n = 0;
  for (TraceMode mode : {TraceMode::kBtm, TraceMode::kHtm}) {
    for (uint8_t sync : {uint8_t{0}, uint8_t{1}, uint8_t{3}}) {
      for (const FeatureSet& f : {FeatureSet{}, all}) {
        for (size_t w = 0; w < windows.size(); ++w) {
          ExpectedOptions eo;
          eo.iss = iss;
          eo.encoder.mode = mode;
          eo.encoder.sync_mode = sync;
          eo.encoder.sync_max = 2;
          eo.encoder.features = f;
          eo.encoder.xlen = n % 4 == 3 ? 32 : 64;
          eo.encoder.icnt_bits = n % 5 == 4 ? 8 : 22;
          eo.edges = windows[w];
          eo.stop_at_end = n % 7 != 6;
          eo.iss.max_instructions = n % 3 == 2 ? 2'345 : iss.max_instructions;
          ExpectBothPathsEqual(image, trace, eo, "config " + std::to_string(n));
          ++n;
        }
      }
    }
  }
  EXPECT_EQ(n, 48);
}

TEST(ReferenceTrace, BeatOfRetirementIsTheIss) {
  const ProgramImage image = GenerateProgram(5, ProgramGenOptions{}).ToImage();
  IssOptions iss;
  iss.interrupt_at = {10, 20, 30};
  const ReferenceTrace trace = RecordReferenceTrace(image, iss);
  for (uint64_t want : {uint64_t{0}, uint64_t{1}, uint64_t{25}, uint64_t{1'000},
                        trace.retired, trace.retired + 5}) {
    Iss run(image, iss);
    Retired r;
    uint64_t beat = 0, done = 0;
    while (done < want && run.Step(&r)) {
      ++beat;
      if (r.retires) ++done;
    }
    EXPECT_EQ(BeatOfRetirement(trace, want), beat) << want;
  }
}

// A trace is only good for its own interrupt schedule and up to its own budget.
TEST(ReferenceTraceDeathTest, AnotherScheduleOrALargerBudgetIsRefused) {
  const ProgramImage image = GenerateProgram(5, ProgramGenOptions{}).ToImage();
  IssOptions iss;
  iss.max_instructions = 1'000;
  iss.interrupt_at = {10};
  const ReferenceTrace trace = RecordReferenceTrace(image, iss);
  ExpectedOptions eo;
  eo.iss = iss;
  eo.iss.interrupt_at = {11};
  EXPECT_DEATH((void)BuildExpectedFromTrace(trace, eo), "another interrupt schedule");
  eo.iss = iss;
  eo.iss.interrupt_every = 50;
  EXPECT_DEATH((void)BuildExpectedFromTrace(trace, eo), "another interrupt schedule");
  eo.iss = iss;
  eo.iss.max_instructions = 1'001;
  EXPECT_DEATH((void)BuildExpectedFromTrace(trace, eo), "exceeds the trace");
}

}  // namespace
}  // namespace ctte::oracle
