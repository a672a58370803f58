// ReferenceCache (runner/reference_cache.h): a hit is the value a miss computes, every key field
// changes the key (and so misses), and the memory bound holds.
#include "runner/reference_cache.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

#include "oracle/program_gen.h"
#include "tests/oracle/expected_equal.h"

namespace ctte::runner {
namespace {

oracle::ProgramImage Program(uint64_t seed) {
  return oracle::GenerateProgram(seed, oracle::ProgramGenOptions{}).ToImage();
}

// A request that exercises every part: interrupts, a pause/resume window, sync, a stop.
ReferenceRequest Request() {
  ReferenceRequest q;
  q.program_sha256 = "program-a";
  q.options.iss.max_instructions = 200'000;
  q.options.iss.interrupt_at = {300, 1'200};
  q.options.encoder.mode = oracle::TraceMode::kBtm;
  q.options.encoder.sync_mode = 3;
  q.options.encoder.sync_max = 4;
  q.options.encoder.xlen = 64;
  q.options.edges = {{100, true}, {800, false}, {1'500, true}};
  q.window_stop = 2'500;
  return q;
}

void ExpectSame(const Reference& a, const Reference& b) {
  EXPECT_EQ(a.max_instructions, b.max_instructions);
  EXPECT_EQ(a.edge_beats, b.edge_beats);
  oracle::test_support::ExpectSameExpected(a.expected, b.expected);
}

TEST(ReferenceCache, HitIsTheValueAMissComputes) {
  const oracle::ProgramImage program = Program(7);
  const ReferenceRequest q = Request();
  const Reference direct = ComputeReference(program, q);
  ASSERT_EQ(direct.expected.windows.size(), 2u);
  ASSERT_GT(direct.expected.retired, 0u);
  ASSERT_FALSE(direct.expected.reference_stream.empty());
  EXPECT_LT(direct.max_instructions, q.options.iss.max_instructions);  // the stop cut it

  ReferenceCache cache;
  bool hit = true;
  const std::shared_ptr<const Reference> miss = cache.Get(program, q, &hit);
  EXPECT_FALSE(hit);
  const std::shared_ptr<const Reference> again = cache.Get(program, q, &hit);
  EXPECT_TRUE(hit);
  EXPECT_EQ(again.get(), miss.get());
  EXPECT_EQ(cache.hits(), 1u);
  EXPECT_EQ(cache.misses(), 1u);
  ExpectSame(*miss, direct);
  ExpectSame(*again, direct);
  EXPECT_EQ(again->expected.image, nullptr);
}

TEST(ReferenceCache, EveryKeyFieldMisses) {
  using Change = std::function<void(ReferenceRequest*)>;
  const std::vector<std::pair<const char*, Change>> changes = {
      {"program_sha256", [](ReferenceRequest* q) { q->program_sha256 = "program-b"; }},
      {"max_instructions", [](ReferenceRequest* q) { q->options.iss.max_instructions += 1; }},
      {"interrupt_at", [](ReferenceRequest* q) { q->options.iss.interrupt_at[1] += 1; }},
      {"interrupt_at size", [](ReferenceRequest* q) { q->options.iss.interrupt_at.pop_back(); }},
      {"interrupt_every", [](ReferenceRequest* q) { q->options.iss.interrupt_every = 64; }},
      {"mode", [](ReferenceRequest* q) { q->options.encoder.mode = oracle::TraceMode::kHtm; }},
      {"sync_mode", [](ReferenceRequest* q) { q->options.encoder.sync_mode = 1; }},
      {"sync_max", [](ReferenceRequest* q) { q->options.encoder.sync_max = 5; }},
      {"icnt_bits", [](ReferenceRequest* q) { q->options.encoder.icnt_bits = 10; }},
      {"implicit_return_depth",
       [](ReferenceRequest* q) { q->options.encoder.features.implicit_return_depth = 4; }},
      {"repeated_history",
       [](ReferenceRequest* q) { q->options.encoder.features.repeated_history = true; }},
      {"repeat_branch",
       [](ReferenceRequest* q) { q->options.encoder.features.repeat_branch = true; }},
      {"sequential_jump",
       [](ReferenceRequest* q) { q->options.encoder.features.sequential_jump = true; }},
      {"full_address",
       [](ReferenceRequest* q) { q->options.encoder.features.full_address = true; }},
      {"config_message",
       [](ReferenceRequest* q) { q->options.encoder.features.config_message = true; }},
      {"xlen", [](ReferenceRequest* q) { q->options.encoder.xlen = 32; }},
      {"compiled_features",
       [](ReferenceRequest* q) { q->options.encoder.compiled_features ^= 1; }},
      {"edge at", [](ReferenceRequest* q) { q->options.edges[1].at += 1; }},
      {"edge open", [](ReferenceRequest* q) { q->options.edges[2].open = false; }},
      {"edges size", [](ReferenceRequest* q) { q->options.edges.pop_back(); }},
      {"stop_at_end", [](ReferenceRequest* q) { q->options.stop_at_end = false; }},
      {"window_stop", [](ReferenceRequest* q) { q->window_stop = 2'501; }},
      {"no window_stop", [](ReferenceRequest* q) { q->window_stop.reset(); }},
  };
  const oracle::ProgramImage program = Program(7);
  const ReferenceRequest base = Request();
  const std::string base_key = ReferenceKey(base);
  EXPECT_EQ(ReferenceKey(Request()), base_key);  // the key is a function of the fields
  ReferenceCache cache;
  (void)cache.Get(program, base);
  for (const auto& [name, change] : changes) {
    ReferenceRequest q = Request();
    change(&q);
    EXPECT_NE(ReferenceKey(q), base_key) << name;
    bool hit = true;
    (void)cache.Get(program, q, &hit);
    EXPECT_FALSE(hit) << name;
  }
  bool hit = false;
  (void)cache.Get(program, base, &hit);
  EXPECT_TRUE(hit);
}

TEST(ReferenceCache, MemoryBound) {
  const oracle::ProgramImage program = Program(7);
  const size_t one = ComputeReference(program, Request()).bytes();
  ReferenceCache cache(3 * one + one / 2);  // room for three entries of this size
  // Ten keys of one size (the label of the program differs, not the work; each ISS run is seen
  // once, so no trace is recorded).
  const auto request = [](int i) {
    ReferenceRequest q = Request();
    q.program_sha256 = "program-" + std::to_string(i);
    return q;
  };
  for (int i = 0; i < 10; ++i) {
    (void)cache.Get(program, request(i));
    EXPECT_LE(cache.bytes(), 3 * one + one / 2);
  }
  EXPECT_EQ(cache.entries(), 3u);
  EXPECT_EQ(cache.trace_records(), 0u);
  // The most recent entries stay; the oldest went.
  bool hit = false;
  (void)cache.Get(program, request(9), &hit);
  EXPECT_TRUE(hit);
  (void)cache.Get(program, request(7), &hit);
  EXPECT_TRUE(hit);
  (void)cache.Get(program, request(0), &hit);
  EXPECT_FALSE(hit);

  ReferenceCache tiny(one / 2);  // an entry above the bound is returned, not kept
  const std::shared_ptr<const Reference> r = tiny.Get(program, Request(), &hit);
  EXPECT_FALSE(hit);
  ExpectSame(*r, ComputeReference(program, Request()));
  EXPECT_EQ(tiny.entries(), 0u);
  EXPECT_EQ(tiny.bytes(), 0u);

  // A trace counts against the bound too: here it is larger than the whole bound (the early
  // stop keeps the reference small), so the second run of the ISS run records it, uses it and
  // does not keep it; the third records again.
  const oracle::ReferenceTrace trace = oracle::RecordReferenceTrace(program, Request().options.iss);
  ASSERT_GT(trace.bytes(), 3 * one + one / 2);
  ReferenceCache small(3 * one + one / 2);
  for (int i = 0; i < 3; ++i) {
    ReferenceRequest q = Request();
    q.window_stop = 2'000 + i;
    bool trace_hit = true;
    const std::shared_ptr<const Reference> got = small.Get(program, q, &hit, &trace_hit);
    EXPECT_FALSE(hit);
    EXPECT_FALSE(trace_hit);
    ExpectSame(*got, ComputeReference(program, q));
    EXPECT_LE(small.bytes(), 3 * one + one / 2);
  }
  EXPECT_EQ(small.trace_records(), 2u);
  EXPECT_EQ(small.entries(), 3u);  // the three references
}

// The second level: requests that differ only in the encoder configuration, the window or the
// early stop share one recorded ISS run (recorded by the second of them), and each result is
// the uncached computation's.
TEST(ReferenceCache, ConfigsSharingOneTraceEqualTheUncachedComputation) {
  using Change = std::function<void(ReferenceRequest*)>;
  const std::vector<std::pair<const char*, Change>> configs = {
      {"base", [](ReferenceRequest*) {}},
      {"htm", [](ReferenceRequest* q) { q->options.encoder.mode = oracle::TraceMode::kHtm; }},
      {"sync off", [](ReferenceRequest* q) { q->options.encoder.sync_mode = 0; }},
      {"sync messages",
       [](ReferenceRequest* q) {
         q->options.encoder.sync_mode = 1;
         q->options.encoder.sync_max = 2;
       }},
      {"every feature",
       [](ReferenceRequest* q) {
         oracle::FeatureSet& f = q->options.encoder.features;
         f.implicit_return_depth = 8;
         f.repeated_history = f.repeat_branch = f.sequential_jump = true;
         f.full_address = f.config_message = true;
       }},
      {"xlen 32", [](ReferenceRequest* q) { q->options.encoder.xlen = 32; }},
      {"late start", [](ReferenceRequest* q) { q->options.edges = {{3'000, true}}; }},
      {"full window, no stop",
       [](ReferenceRequest* q) {
         q->options.edges.clear();
         q->window_stop.reset();
       }},
      {"early stop 40", [](ReferenceRequest* q) { q->window_stop = 40; }},
      {"stop past the end", [](ReferenceRequest* q) { q->window_stop = 100'000'000; }},
      {"no stop at end", [](ReferenceRequest* q) { q->options.stop_at_end = false; }},
  };
  const oracle::ProgramImage program = Program(7);
  ReferenceCache cache;
  for (size_t i = 0; i < configs.size(); ++i) {
    ReferenceRequest q = Request();
    configs[i].second(&q);
    EXPECT_EQ(TraceKey(q), TraceKey(Request())) << configs[i].first;
    bool hit = true, trace_hit = i < 2;
    const std::shared_ptr<const Reference> got = cache.Get(program, q, &hit, &trace_hit);
    EXPECT_FALSE(hit) << configs[i].first;
    EXPECT_EQ(trace_hit, i >= 2) << configs[i].first;
    SCOPED_TRACE(configs[i].first);
    ExpectSame(*got, ComputeReference(program, q));
  }
  EXPECT_EQ(cache.misses(), configs.size());
  EXPECT_EQ(cache.trace_records(), 1u);
  EXPECT_EQ(cache.trace_hits(), configs.size() - 2);
  EXPECT_EQ(cache.entries(), configs.size() + 1);
}

// Every field the ISS's run depends on is in the trace key: with the base request's trace in
// the cache, a change of one finds no trace, and the result is still the uncached
// computation's. Had the trace been shared across the change, the result would differ (shown
// for each field against the base request's reference).
TEST(ReferenceCache, EveryIssFieldChangesTheTraceKey) {
  using Change = std::function<void(ReferenceRequest*)>;
  const std::vector<std::pair<const char*, Change>> changes = {
      {"program_sha256", [](ReferenceRequest* q) { q->program_sha256 = "program-b"; }},
      {"max_instructions", [](ReferenceRequest* q) { q->options.iss.max_instructions = 1'000; }},
      {"interrupt_at", [](ReferenceRequest* q) { q->options.iss.interrupt_at[1] += 1; }},
      {"interrupt_at size", [](ReferenceRequest* q) { q->options.iss.interrupt_at.pop_back(); }},
      {"interrupt_every", [](ReferenceRequest* q) { q->options.iss.interrupt_every = 64; }},
  };
  const oracle::ProgramImage program_a = Program(7);
  const oracle::ProgramImage program_b = Program(8);
  const ReferenceRequest base = Request();
  const Reference from_base_trace_direct = ComputeReference(program_a, base);
  ReferenceCache cache;
  (void)cache.Get(program_a, base);
  ReferenceRequest base_htm = base;  // the second run of the base's ISS run records its trace
  base_htm.options.encoder.mode = oracle::TraceMode::kHtm;
  (void)cache.Get(program_a, base_htm);
  ASSERT_EQ(cache.trace_records(), 1u);
  for (const auto& [name, change] : changes) {
    ReferenceRequest q = Request();
    change(&q);
    EXPECT_NE(TraceKey(q), TraceKey(base)) << name;
    const oracle::ProgramImage& program = q.program_sha256 == "program-b" ? program_b : program_a;
    bool trace_hit = true;
    const std::shared_ptr<const Reference> got = cache.Get(program, q, nullptr, &trace_hit);
    EXPECT_FALSE(trace_hit) << name;
    const Reference direct = ComputeReference(program, q);
    {
      SCOPED_TRACE(name);
      ExpectSame(*got, direct);
    }
    // What sharing the base request's trace would have given instead: another reference.
    const bool differs = direct.expected.pcs != from_base_trace_direct.expected.pcs ||
                         direct.expected.reference_stream !=
                             from_base_trace_direct.expected.reference_stream;
    EXPECT_TRUE(differs) << name << ": the change does not show in the reference";
  }
  EXPECT_EQ(cache.trace_records(), 1u);
  EXPECT_EQ(cache.trace_hits(), 0u);
}

}  // namespace
}  // namespace ctte::runner
