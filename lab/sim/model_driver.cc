// ModelDriver: two-clock harness (see model_driver.h).
#include "lab/sim/model_driver.h"

#include <algorithm>

#include "base/check.h"
#include "base/phase_sampler.h"
#include "lab/failure.h"
#include "regmap/registers.h"

namespace ctte::lab {
namespace {
constexpr uint64_t kReadyAhead = 4096;  // ready decisions drawn per refill (and capture room)
}  // namespace

ModelDriver::ModelDriver(const ctte_image_table& table, const Options& options)
    : t_(table), o_(options), ready_(kReadyAhead), capture_(kReadyAhead) {
  CTTE_CHECK(o_.fabric_half_units > 0 && o_.sink_half_units > 0, "clock periods must be > 0");
  CTTE_CHECK(o_.fabric_half_units / o_.sink_half_units + 1 < kReadyAhead,
             "sink clock too fast for the ready buffer");
  m_ = t_.create(o_.seed);
  CTTE_CHECK(m_ != nullptr, "image create() returned null");
  c_.fabric_half = o_.fabric_half_units;
  c_.sink_half = o_.sink_half_units;
  c_.next_fab = o_.fabric_half_units;
  c_.next_sink = o_.sink_half_units;
  c_.ready = 1;
  c_.empty_mask = reg::kEmpty;
  c_.ready_in = ready_.data();
  c_.ready_len = c_.ready_pos = 0;
  c_.capture = capture_.data();
  c_.capture_cap = capture_.size();
  cur_ = IdleCycle();
  t_.set_ingress(m_, &cur_.beat);
  t_.set_sink_ready(m_, c_.ready);
  t_.set_reg_bus(m_, 0, reg::kTeControl, 0);
}

ModelDriver::~ModelDriver() {
  if (tracing_) t_.trace_close(m_);
  t_.destroy(m_);
}

ctte_cycle_in ModelDriver::IdleCycle() {
  ctte_cycle_in in{};
  in.reg_addr = reg::kTeControl;
  return in;
}

Status ModelDriver::OpenFst(const std::string& path) {
  if (t_.trace_open(m_, path.c_str()) != 0) {
    return Status::IOError("cannot open FST waveform " + path);
  }
  tracing_ = true;
  return Status::Ok();
}

void ModelDriver::RefillReady(uint64_t need) {
  if (c_.ready_len - c_.ready_pos >= need) return;
  const uint64_t left = c_.ready_len - c_.ready_pos;
  std::copy(ready_.begin() + static_cast<std::ptrdiff_t>(c_.ready_pos),
            ready_.begin() + static_cast<std::ptrdiff_t>(c_.ready_len), ready_.begin());
  const size_t fresh = ready_.size() - static_cast<size_t>(left);
  if (pattern_ != nullptr) {
    pattern_->Fill(ready_.data() + left, fresh);
  } else {
    std::fill_n(ready_.begin() + static_cast<std::ptrdiff_t>(left), fresh, uint8_t{1});
  }
  c_.ready_pos = 0;
  c_.ready_len = ready_.size();
}

void ModelDriver::DrainCapture() {
  if (ring_ != nullptr) {
    ring_->Push(capture_.data(), static_cast<size_t>(c_.capture_len));
  }
  c_.capture_len = 0;
}

void ModelDriver::AttachSink(SinkPattern* pattern, CaptureRing* ring) {
  DrainCapture();
  pattern_ = pattern;
  ring_ = ring;
  c_.ready_len = c_.ready_pos = 0;  // decisions drawn for the old pattern are dropped
  const int ready = pattern_ ? (pattern_->Next() ? 1 : 0) : 1;
  if (ready != c_.ready) {
    c_.ready = ready;
    t_.set_sink_ready(m_, c_.ready);
  }
  c_.measure_stall = 1;
}

void ModelDriver::DetachSink() {
  DrainCapture();
  pattern_ = nullptr;
  ring_ = nullptr;
}

void ModelDriver::Eval() {
  phase::Scope in_model(phase::kModel);
  t_.eval(m_, c_.fab_level, c_.sink_level);
}

Status ModelDriver::FailedStatus() {
  const char* msg = t_.failure_message(m_);
  return RtlAssertionError(msg ? msg : "(no message)");
}

Status ModelDriver::Step(bool* fabric_rose, bool* sink_rose) {
  c_.now = c_.next_fab < c_.next_sink ? c_.next_fab : c_.next_sink;
  *fabric_rose = *sink_rose = false;
  if (c_.next_fab == c_.now) {
    c_.fab_level ^= 1;
    *fabric_rose = c_.fab_level == 1;
    c_.next_fab += c_.fabric_half;
  }
  if (c_.next_sink == c_.now) {
    c_.sink_level ^= 1;
    *sink_rose = c_.sink_level == 1;
    c_.next_sink += c_.sink_half;
    const bool offered = t_.sink_valid(m_) != 0;
    if (*sink_rose && c_.ready && offered) {
      const uint8_t b = t_.sink_data(m_);
      if (ring_ != nullptr) ring_->Push(b);
    }
    if (*sink_rose && c_.measure_stall) {
      // The output stalls while the sink is ready: nothing offered, yet trTeEmpty=0.
      if (c_.ready && !offered && !(t_.reg_rdata(m_) & c_.empty_mask)) {
        if (++c_.ready_stall > c_.max_ready_stall) c_.max_ready_stall = c_.ready_stall;
      } else {
        c_.ready_stall = 0;
      }
    }
  }
  Eval();
  ++c_.evals;
  if (*fabric_rose) ++c_.fabric_cycles;
  if (*sink_rose) {
    ++c_.sink_cycles;
    RefillReady(1);
    const int ready = c_.ready_in[c_.ready_pos++];
    if (ready != c_.ready) {  // an unchanged input is not re-set
      c_.ready = ready;
      t_.set_sink_ready(m_, c_.ready);
    }
  }
  return CheckFailed();
}

Status ModelDriver::RunCycles(const ctte_cycle_in* cycles, uint64_t n) {
  const uint64_t per_cycle = c_.fabric_half / c_.sink_half + 1;
  uint64_t done = 0;
  while (done < n) {
    RefillReady(per_cycle);
    uint64_t k;
    {
      phase::Scope in_model(phase::kModel);
      k = t_.run_fabric_cycles(m_, &c_, cycles + done, n - done);
    }
    done += k;
    DrainCapture();
    if (t_.failed(m_) != 0) return FailedStatus();
    CTTE_CHECK(k > 0 || done == n, "image run_fabric_cycles made no progress");
  }
  // The image leaves the last cycle's inputs applied; the bus idles and the ingress is cur_'s.
  if (n > 0 && &cycles[n - 1] != &cur_) {
    t_.set_ingress(m_, &cur_.beat);
    t_.set_reg_bus(m_, 0, reg::kTeControl, 0);
  }
  return Status::Ok();
}

Status ModelDriver::Reset() {
  t_.set_reset_n(m_, 0);
  const uint64_t f0 = c_.fabric_cycles, s0 = c_.sink_cycles;
  while (c_.fabric_cycles - f0 < 4 || c_.sink_cycles - s0 < 4) {
    bool fab = false, sink = false;
    CTTE_RETURN_IF_ERROR(Step(&fab, &sink));
  }
  t_.set_reset_n(m_, 1);
  CTTE_RETURN_IF_ERROR(FabricCycle());
  return FabricCycle();
}

Status ModelDriver::WriteReg(uint32_t offset, uint32_t value) {
  ctte_cycle_in w = cur_;
  w.reg_we = 1;
  w.reg_addr = offset;
  w.reg_wdata = value;
  return RunCycles(&w, 1);
}

Status ModelDriver::ReadReg(uint32_t offset, uint32_t* value) {
  t_.set_reg_bus(m_, 0, offset, 0);
  Eval();
  ++c_.evals;
  *value = t_.reg_rdata(m_);
  t_.set_reg_bus(m_, 0, reg::kTeControl, 0);
  Eval();
  ++c_.evals;
  return CheckFailed();
}

}  // namespace ctte::lab
