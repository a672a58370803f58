// ModelDriver: two-clock harness (see model_driver.h).
#include "lab/sim/model_driver.h"

#include "base/check.h"
#include "base/phase_sampler.h"
#include "lab/failure.h"
#include "regmap/registers.h"

namespace ctte::lab {

ModelDriver::ModelDriver(const ctte_image_table& table, const Options& options)
    : t_(table), o_(options) {
  CTTE_CHECK(o_.fabric_half_units > 0 && o_.sink_half_units > 0, "clock periods must be > 0");
  m_ = t_.create(o_.seed);
  CTTE_CHECK(m_ != nullptr, "image create() returned null");
  next_fab_ = o_.fabric_half_units;
  next_sink_ = o_.sink_half_units;
  SetIdle();
  t_.set_sink_ready(m_, ready_);
  t_.set_reg_bus(m_, 0, reg::kTeControl, 0);
}

ModelDriver::~ModelDriver() {
  if (tracing_) t_.trace_close(m_);
  t_.destroy(m_);
}

Status ModelDriver::OpenFst(const std::string& path) {
  if (t_.trace_open(m_, path.c_str()) != 0) {
    return Status::IOError("cannot open FST waveform " + path);
  }
  tracing_ = true;
  return Status::Ok();
}

void ModelDriver::AttachSink(SinkPattern* pattern, CaptureRing* ring) {
  pattern_ = pattern;
  ring_ = ring;
  SetReady(pattern_ ? (pattern_->Next() ? 1 : 0) : 1);
  measure_stall_ = true;
}

void ModelDriver::Eval() {
  phase::Scope in_model(phase::kModel);
  t_.eval(m_, fab_level_, sink_level_);
}

void ModelDriver::SetIdle() {
  ctte_ingress idle{};
  t_.set_ingress(m_, &idle);
}

Status ModelDriver::FailedStatus() {
  const char* msg = t_.failure_message(m_);
  return RtlAssertionError(msg ? msg : "(no message)");
}

Status ModelDriver::Step(bool* fabric_rose, bool* sink_rose) {
  now_ = next_fab_ < next_sink_ ? next_fab_ : next_sink_;
  *fabric_rose = *sink_rose = false;
  if (next_fab_ == now_) {
    fab_level_ ^= 1;
    *fabric_rose = fab_level_ == 1;
    next_fab_ += o_.fabric_half_units;
  }
  if (next_sink_ == now_) {
    sink_level_ ^= 1;
    *sink_rose = sink_level_ == 1;
    next_sink_ += o_.sink_half_units;
    const bool offered = t_.sink_valid(m_) != 0;
    if (*sink_rose && ready_ && offered) {
      const uint8_t b = t_.sink_data(m_);
      if (ring_ != nullptr) ring_->Push(b);
    }
    if (*sink_rose && measure_stall_) {
      // The output stalls while the sink is ready: nothing offered, yet trTeEmpty=0.
      if (ready_ && !offered && !(t_.reg_rdata(m_) & reg::kEmpty)) {
        if (++ready_stall_ > max_ready_stall_) max_ready_stall_ = ready_stall_;
      } else {
        ready_stall_ = 0;
      }
    }
  }
  Eval();
  ++evals_;
  if (*fabric_rose) ++fabric_cycles_;
  if (*sink_rose) {
    ++sink_cycles_;
    SetReady(pattern_ ? (pattern_->Next() ? 1 : 0) : 1);  // an unchanged input is not re-set
  }
  return CheckFailed();
}

Status ModelDriver::FabricCycle() {
  bool fab = false, sink = false;
  do {
    CTTE_RETURN_IF_ERROR(Step(&fab, &sink));
  } while (!fab);
  return Status::Ok();
}

Status ModelDriver::SinkCycle() {
  bool fab = false, sink = false;
  do {
    CTTE_RETURN_IF_ERROR(Step(&fab, &sink));
  } while (!sink);
  return Status::Ok();
}

Status ModelDriver::Reset() {
  t_.set_reset_n(m_, 0);
  const uint64_t f0 = fabric_cycles_, s0 = sink_cycles_;
  while (fabric_cycles_ - f0 < 4 || sink_cycles_ - s0 < 4) {
    bool fab = false, sink = false;
    CTTE_RETURN_IF_ERROR(Step(&fab, &sink));
  }
  t_.set_reset_n(m_, 1);
  CTTE_RETURN_IF_ERROR(FabricCycle());
  return FabricCycle();
}

Status ModelDriver::WriteReg(uint32_t offset, uint32_t value) {
  t_.set_reg_bus(m_, 1, offset, value);
  Status s = FabricCycle();
  t_.set_reg_bus(m_, 0, reg::kTeControl, 0);
  return s;
}

Status ModelDriver::ReadReg(uint32_t offset, uint32_t* value) {
  t_.set_reg_bus(m_, 0, offset, 0);
  Eval();
  ++evals_;
  *value = t_.reg_rdata(m_);
  t_.set_reg_bus(m_, 0, reg::kTeControl, 0);
  Eval();
  ++evals_;
  return CheckFailed();
}

}  // namespace ctte::lab
