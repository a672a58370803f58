// Plan block encoding (see plan_block.h).
#include "lab/zynq/plan_block.h"

#include <cstring>
#include <string>

namespace ctte::lab::zynq {

namespace {
constexpr size_t kFixedWords = 2 + 24;

void Put(std::vector<uint8_t>* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<uint8_t>(v >> (8 * i)));
}
}  // namespace

std::vector<uint8_t> EncodePlanBlock(const PlanBlock& b) {
  const RunPlan& p = b.plan;
  std::vector<uint8_t> out;
  const uint64_t words = kFixedWords + p.iss.interrupt_at.size() + 2 * p.window_edges.size() +
                         3 * b.segments.size();
  Put(&out, kPlanMagic);
  Put(&out, words * 8);
  for (uint64_t v : {p.iss.max_instructions, p.iss.interrupt_every, uint64_t{p.encoder.mode},
                     uint64_t{p.encoder.sync_mode}, uint64_t{p.encoder.sync_max},
                     uint64_t{p.stop_at_end}, p.stall.seed, uint64_t{p.stall.ipc_num},
                     uint64_t{p.stall.ipc_den}, static_cast<uint64_t>(p.sink.kind), p.sink.seed,
                     uint64_t{p.sink.accept_num}, uint64_t{p.sink.accept_den},
                     uint64_t{p.sink.ready_min}, uint64_t{p.sink.ready_max},
                     uint64_t{p.sink.stall_min}, uint64_t{p.sink.stall_max}, p.ring_bytes,
                     p.drain_budget_sink_cycles, p.model_seed, b.entry,
                     uint64_t{p.iss.interrupt_at.size()}, uint64_t{p.window_edges.size()},
                     uint64_t{b.segments.size()}}) {
    Put(&out, v);
  }
  for (uint64_t at : p.iss.interrupt_at) Put(&out, at);
  for (const WindowEdge& e : p.window_edges) {
    Put(&out, e.before_beat);
    Put(&out, e.open ? 1 : 0);
  }
  for (const SegmentInfo& s : b.segments) {
    Put(&out, s.vaddr);
    Put(&out, s.memsz);
    Put(&out, s.executable ? 1 : 0);
  }
  return out;
}

Result<PlanBlock> DecodePlanBlock(const std::vector<uint8_t>& bytes) {
  const size_t n = bytes.size() / 8;
  size_t at = 0;
  const auto word = [&](size_t i) {
    uint64_t v = 0;
    std::memcpy(&v, bytes.data() + 8 * i, 8);
    return v;  // little-endian host (x86-64, AArch64 Linux)
  };
  if (n < kFixedWords || word(0) != kPlanMagic) {
    return Status::Corruption("plan block: no CTTEPLN1 magic at word 0");
  }
  if (word(1) != bytes.size()) {
    return Status::Corruption("plan block: word 1 says " + std::to_string(word(1)) +
                              " bytes, the block has " + std::to_string(bytes.size()));
  }
  at = 2;
  const auto next = [&] { return word(at++); };
  PlanBlock b;
  RunPlan& p = b.plan;
  p.iss.max_instructions = next();
  p.iss.interrupt_every = next();
  p.encoder.mode = static_cast<uint8_t>(next());
  p.encoder.sync_mode = static_cast<uint8_t>(next());
  p.encoder.sync_max = static_cast<uint8_t>(next());
  p.stop_at_end = next() != 0;
  p.stall.seed = next();
  p.stall.ipc_num = static_cast<uint32_t>(next());
  p.stall.ipc_den = static_cast<uint32_t>(next());
  p.sink.kind = static_cast<BackpressureKind>(next());
  p.sink.seed = next();
  p.sink.accept_num = static_cast<uint32_t>(next());
  p.sink.accept_den = static_cast<uint32_t>(next());
  p.sink.ready_min = static_cast<uint32_t>(next());
  p.sink.ready_max = static_cast<uint32_t>(next());
  p.sink.stall_min = static_cast<uint32_t>(next());
  p.sink.stall_max = static_cast<uint32_t>(next());
  p.ring_bytes = next();
  p.drain_budget_sink_cycles = next();
  p.model_seed = next();
  b.entry = next();
  const uint64_t ni = next(), ne = next(), ns = next();
  if (ni > n || ne > n || ns > n || kFixedWords + ni + 2 * ne + 3 * ns != n) {
    return Status::Corruption("plan block: counts (" + std::to_string(ni) + " interrupts, " +
                              std::to_string(ne) + " edges, " + std::to_string(ns) +
                              " segments) do not fill the " + std::to_string(n) + "-word block");
  }
  for (uint64_t i = 0; i < ni; ++i) p.iss.interrupt_at.push_back(next());
  for (uint64_t i = 0; i < ne; ++i) {
    WindowEdge e;
    e.before_beat = next();
    e.open = next() != 0;
    p.window_edges.push_back(e);
  }
  for (uint64_t i = 0; i < ns; ++i) {
    SegmentInfo s;
    s.vaddr = next();
    s.memsz = next();
    s.executable = next() != 0;
    b.segments.push_back(s);
  }
  return b;
}

}  // namespace ctte::lab::zynq
