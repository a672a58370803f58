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
// Each eval() runs under phase::kModel (base/phase_sampler.h), so a bench can sample the share
// of host time inside the model.
#pragma once

#include <cstdint>
#include <string>

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

  void SetIngress(const ctte_ingress& beat) { t_.set_ingress(m_, &beat); }
  void SetIdle();
  /// Advances until one fabric rising edge has been evaluated.
  Status FabricCycle();
  /// Advances until one sink rising edge has been evaluated.
  Status SinkCycle();
  /// Register write: bus write for one fabric rising edge, then the bus idles.
  Status WriteReg(uint32_t offset, uint32_t value);
  /// Combinational register read at the current clock levels (no edge).
  Status ReadReg(uint32_t offset, uint32_t* value);
  /// trTeControl as of the last eval (the bus idles at offset 0).
  uint32_t control_now() { return t_.reg_rdata(m_); }

  uint64_t fabric_cycles() const { return fabric_cycles_; }
  uint64_t sink_cycles() const { return sink_cycles_; }
  uint64_t time_units() const { return now_; }
  uint64_t evals() const { return evals_; }
  /// Longest run of sink cycles (since AttachSink) with ready=1, trTeEmpty=0 and no byte offered.
  uint64_t max_ready_stall() const { return max_ready_stall_; }

 private:
  /// One eval step to the next clock toggle; sets *fabric_rose / *sink_rose.
  Status Step(bool* fabric_rose, bool* sink_rose);
  Status CheckFailed() {
    if (t_.failed(m_) == 0) return Status::Ok();
    return FailedStatus();
  }
  Status FailedStatus();
  void Eval();
  void SetReady(int ready) {
    if (ready != ready_) {
      ready_ = ready;
      t_.set_sink_ready(m_, ready_);
    }
  }

  const ctte_image_table& t_;
  Options o_;
  ctte_model* m_ = nullptr;
  bool tracing_ = false;
  uint64_t now_ = 0;
  uint64_t next_fab_ = 0, next_sink_ = 0;
  int fab_level_ = 0, sink_level_ = 0;
  int ready_ = 1;
  SinkPattern* pattern_ = nullptr;
  CaptureRing* ring_ = nullptr;
  uint64_t fabric_cycles_ = 0, sink_cycles_ = 0, evals_ = 0;
  bool measure_stall_ = false;
  uint64_t ready_stall_ = 0, max_ready_stall_ = 0;
};

}  // namespace ctte::lab
