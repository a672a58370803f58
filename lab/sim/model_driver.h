// ModelDriver: the clock harness around one image model.
//
// Simulated time advances in units of half a VCO period (lab/pll.h). Each clock toggles every
// `half_period` units; the driver jumps to the next toggle of either clock, sets the levels and
// calls eval() once (coincident edges share one eval), so the fabric/sink ratio is exact.
// At each sink rising edge the byte offered by the model (sink_valid/sink_data from the previous
// eval) is taken if the ready presented for that edge was 1; then ready for the next sink cycle
// is drawn from the SinkPattern. Inputs set between calls (ingress beat, register bus) are
// sampled at the next fabric rising edge. The register bus idles at address 0 (trTeControl), so
// reg_rdata() after any edge is the current trTeControl without an extra eval.
// After every eval the model's failed() flag is checked: an RTL assertion ends the run.
//
// Fabric cycles run inside the image (since ABI 2, run_fabric_cycles): RunCycles() hands the image a
// batch of per-cycle inputs, the clock state (ctte_clock) and ready decisions drawn ahead from
// the SinkPattern (the pattern does not depend on the model), and pushes the bytes the sink took
// into the ring; the image steps exactly as Step() below (which Reset() still uses). Each image
// call runs under phase::kModel (base/phase_sampler.h): in a batch that includes the image's
// own clock loop (see docs/bench.md for its share, measured with perf).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "lab/capture_ring.h"
#include "lab/sink_pattern.h"
#include "rtl/ctte_image_abi.h"

namespace ctte::lab {

class ModelDriver {
 public:
  struct Options {
    uint64_t fabric_half_units = 15;
    uint64_t sink_half_units = 15;
    uint64_t seed = 1;  ///< model X-initialization seed
  };
  ModelDriver(const ctte_image_table& table, const Options& options);
  ~ModelDriver();
  ModelDriver(const ModelDriver&) = delete;
  ModelDriver& operator=(const ModelDriver&) = delete;

  Status OpenFst(const std::string& path);
  /// Holds reset for at least 4 cycles of each clock, then releases it for 2 fabric cycles.
  Status Reset();
  /// Capture path for the sink; nullptr pattern = always ready, nullptr ring = discard.
  void AttachSink(SinkPattern* pattern, CaptureRing* ring);
  /// Moves what the sink took into the ring, then forgets the pattern and the ring (their
  /// owner, a run, is ending): later cycles (a register write after the run, the agent's reset
  /// after a session) draw ready = 1 and discard what the sink takes. The sink's ready level
  /// is left as it is.
  void DetachSink();

  void SetIngress(const ctte_ingress& beat) { cur_.beat = beat; }
  void SetIdle() { cur_.beat = ctte_ingress{}; }
  /// Advances until one fabric rising edge has been evaluated (current inputs).
  Status FabricCycle() { return RunCycles(&cur_, 1); }
  /// Runs cycles[0, n): each one fabric cycle with its inputs; the inputs set with SetIngress
  /// and the register bus are unchanged by it.
  Status RunCycles(const ctte_cycle_in* cycles, uint64_t n);
  /// Register write: bus write for one fabric rising edge, then the bus idles.
  Status WriteReg(uint32_t offset, uint32_t value);
  /// Combinational register read at the current clock levels (no edge).
  Status ReadReg(uint32_t offset, uint32_t* value);
  /// trTeControl as of the last eval (the bus idles at offset 0).
  uint32_t control_now() { return t_.reg_rdata(m_); }
  /// The inputs of an idle fabric cycle (idle ingress, bus idle at trTeControl).
  static ctte_cycle_in IdleCycle();

  uint64_t fabric_cycles() const { return c_.fabric_cycles; }
  uint64_t sink_cycles() const { return c_.sink_cycles; }
  uint64_t time_units() const { return c_.now; }
  uint64_t evals() const { return c_.evals; }
  /// Longest run of sink cycles (since AttachSink) with ready=1, trTeEmpty=0 and no byte offered.
  uint64_t max_ready_stall() const { return c_.max_ready_stall; }

 private:
  /// One eval step to the next clock toggle; sets *fabric_rose / *sink_rose.
  Status Step(bool* fabric_rose, bool* sink_rose);
  Status CheckFailed() {
    if (t_.failed(m_) == 0) return Status::Ok();
    return FailedStatus();
  }
  Status FailedStatus();
  void Eval();
  /// Ready decisions left unread in ready_; draws more when fewer than `need` are left.
  void RefillReady(uint64_t need);
  /// Moves the bytes the sink took into the ring.
  void DrainCapture();

  const ctte_image_table& t_;
  Options o_;
  ctte_model* m_ = nullptr;
  bool tracing_ = false;
  ctte_clock c_{};
  ctte_cycle_in cur_{};  ///< inputs of FabricCycle(): the ingress set last, the bus idle
  std::vector<uint8_t> ready_;    ///< ready decisions drawn ahead (c_.ready_in)
  std::vector<uint8_t> capture_;  ///< bytes the sink took, not yet in the ring (c_.capture)
  SinkPattern* pattern_ = nullptr;
  CaptureRing* ring_ = nullptr;
};

}  // namespace ctte::lab
