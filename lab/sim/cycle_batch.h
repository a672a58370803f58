// CycleBatch: the beat loop's batch of fabric-cycle inputs (SimBoard::RunProgram; image ABI 2's
// run_fabric_cycles, docs/rtl.md "Profiles"), filled in place and handed to the image in one
// ModelDriver::RunCycles call per kBatchCycles cycles.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/status.h"
#include "lab/sim/model_driver.h"

namespace ctte::lab {

// Fabric cycles handed to the image per call in the beat loop.
inline constexpr size_t kBatchCycles = 1024;

// The beat loop's batch of fabric-cycle inputs: appended in place, handed to the image by
// Flush() once kBatchCycles are queued (the caller asks full() after each beat). Where a batch
// ends does not change what the model does (ModelDriver::RunCycles steps cycle by cycle).
class CycleBatch {
 public:
  explicit CycleBatch(ModelDriver* d) : d_(d), buf_(kBatchCycles + 64) {}
  /// A new cycle, a copy of `like`, to be filled in.
  ctte_cycle_in* Append(const ctte_cycle_in& like) {
    if (n_ == buf_.size()) buf_.resize(2 * buf_.size());  // many edges before one beat
    buf_[n_] = like;
    return &buf_[n_++];
  }
  /// `count` copies of `idle`, flushing as the batch fills.
  Status AppendIdle(const ctte_cycle_in& idle, uint64_t count) {
    while (count > 0) {
      if (n_ >= kBatchCycles) CTTE_RETURN_IF_ERROR(Flush());
      const uint64_t k = std::min<uint64_t>(count, buf_.size() - n_);
      std::fill_n(buf_.begin() + static_cast<std::ptrdiff_t>(n_), k, idle);
      n_ += k;
      count -= k;
    }
    return Status::Ok();
  }
  bool full() const { return n_ >= kBatchCycles; }
  Status Flush() {
    const size_t n = n_;
    n_ = 0;
    return d_->RunCycles(buf_.data(), n);
  }

 private:
  ModelDriver* d_;
  std::vector<ctte_cycle_in> buf_;
  size_t n_ = 0;
};

}  // namespace ctte::lab
