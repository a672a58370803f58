// The reference core model: an RV64IMAC + Zicsr instruction-set simulator, M-mode.
//
// Deterministic (no wall clock, no host randomness). Yields one Retired record per beat
// (oracle/retired.h): every retired instruction plus a non-retiring beat per trap. No allocation
// per instruction. Memory: RAM at ProgramImage::kRamBase; MMIO: SiFive test device at 0x100000
// (exit), UART THR at 0x10000000 (console), CLINT msip at 0x02000000.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "oracle/program_image.h"
#include "oracle/retired.h"

namespace ctte::oracle {

struct IssOptions {
  uint64_t max_instructions = 50'000'000;  ///< stop (not halted) after this many beats
  /// Raise the machine software interrupt (mip.MSIP) when this many instructions have retired.
  /// Sorted ascending. The handler clears it through CLINT msip.
  std::vector<uint64_t> interrupt_at;
  uint64_t interrupt_every = 0;  ///< if non-zero: also raise at every multiple of this
};

enum class StopReason { kRunning, kExited, kMaxInstructions, kFatal };
/// "running", "exited", "max_instructions", "fatal": the stop reason as text (the stem of a
/// run's core_stop).
const char* StopReasonName(StopReason reason);
/// A run's core_stop text: StopReasonName(reason), and for kFatal "fatal: <fatal_message>".
/// This is what boards report and runs store.
std::string CoreStopText(StopReason reason, const std::string& fatal_message);
/// The stop reason a core_stop text names ("fatal: ..." gives kFatal); nullopt for other text.
std::optional<StopReason> ParseCoreStop(std::string_view core_stop);

class Iss {
 public:
  Iss(const ProgramImage& image, IssOptions options);
  ~Iss();
  Iss(const Iss&) = delete;
  Iss& operator=(const Iss&) = delete;

  /// Executes until the next beat and stores it in *out. Returns false (and writes nothing)
  /// once stopped.
  bool Step(Retired* out);
  /// Step() up to n times, filling out[0, k): the same beats in the same order, with the
  /// per-beat path inlined in one loop (what a caller that consumes beats in blocks uses: the
  /// simulated board). Returns k; k < n only once stopped (then k == 0 on every later call).
  size_t StepMany(Retired* out, size_t n);

  StopReason stop_reason() const;
  int exit_code() const;            ///< valid when stop_reason() == kExited
  const std::string& console() const;
  uint64_t retired() const;         ///< instructions retired so far (trap beats excluded)
  uint64_t beats() const;           ///< beats yielded so far
  const std::string& fatal_message() const;  ///< e.g. "fetch from unmapped 0x1234"
  /// CoreStopText(stop_reason(), fatal_message()).
  std::string core_stop() const;

  // Extra methods (for testing).
  uint64_t TEST_Reg(int index) const;  ///< integer register x[index]

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ctte::oracle
