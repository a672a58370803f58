// The plan block: a RunPlan as the harness's plan sequencer reads it from the plan memory (UIO
// map "plan"), little-endian 64-bit words. ZynqBoard writes it before releasing the core; the
// harness (on a board: its sequencer; here: the fabric emulator) applies it: interrupt
// schedule, encoder configuration and window edges at beat boundaries, stall and sink patterns,
// ring size, drain budget. The workload's loadable segments are in the guest memory window,
// at vaddr - kGuestBase; the block lists them.
//
//   word 0  magic "CTTEPLN1"       word 1  block bytes
//   then, one word each: max_instructions, interrupt_every, mode, sync_mode, sync_max,
//   stop_at_end, stall seed, ipc_num, ipc_den, sink kind, sink seed, accept_num, accept_den,
//   ready_min, ready_max, stall_min, stall_max, ring_bytes, drain budget, model_seed, entry,
//   count of interrupts, count of edges, count of segments;
//   then the interrupts (1 word each), the edges (before_beat, open), the segments
//   (vaddr, memsz, executable).
// The last kResultBytes of the plan memory are the harness's result text (a fatal core stop's
// message): word length, then the bytes. The kConsoleAreaBytes before them are the workload's
// console (what the core wrote to HTIF's console device or the UART): word T = bytes written
// in the run, then the first min(T, kMaxConsoleBytes) of them, raw; the board turns them into
// Capture::console (ConsoleText), as the simulated board does.
#pragma once

#include <cstdint>
#include <vector>

#include "base/status.h"
#include "lab/board.h"
#include "oracle/platform.h"

namespace ctte::lab::zynq {

inline constexpr uint64_t kPlanMagic = 0x314E4C5045545443ull;  // "CTTEPLN1"
/// The core's RAM base: the platform's default RAM window (oracle/platform.h). Segments linked
/// elsewhere (which the simulated board maps) are not in the guest window: the deploy refuses them.
inline constexpr uint64_t kGuestBase = oracle::platform::kDefaultRamBase;
inline constexpr uint64_t kResultBytes = 4096;
inline constexpr uint64_t kConsoleAreaBytes = 8192;  ///< >= 8 + kMaxConsoleBytes
static_assert(kConsoleAreaBytes >= 8 + kMaxConsoleBytes);
/// Where the console area starts in a plan memory of `plan_bytes`.
inline uint64_t ConsoleAreaOffset(uint64_t plan_bytes) {
  return plan_bytes - kResultBytes - kConsoleAreaBytes;
}

struct SegmentInfo {
  uint64_t vaddr = 0, memsz = 0;
  bool executable = false;
};

struct PlanBlock {
  RunPlan plan;  ///< workload_elf and fst_path are not carried
  uint64_t entry = 0;
  std::vector<SegmentInfo> segments;
};

std::vector<uint8_t> EncodePlanBlock(const PlanBlock& block);
/// Corruption naming the word for a bad magic, a size mismatch or counts beyond the block.
Result<PlanBlock> DecodePlanBlock(const std::vector<uint8_t>& bytes);

}  // namespace ctte::lab::zynq
