#include "lab/capture_ring.h"

#include "base/check.h"

namespace ctte::lab {

CaptureRing::CaptureRing(uint64_t capacity) : buf_(capacity) {
  CTTE_CHECK(capacity > 0, "capture ring capacity must be positive");
}

std::vector<uint8_t> CaptureRing::Contents() const {
  if (!wrapped()) {
    return std::vector<uint8_t>(buf_.begin(), buf_.begin() + static_cast<long>(total_));
  }
  std::vector<uint8_t> out;
  out.reserve(buf_.size());
  out.insert(out.end(), buf_.begin() + static_cast<long>(head_), buf_.end());
  out.insert(out.end(), buf_.begin(), buf_.begin() + static_cast<long>(head_));
  return out;
}

}  // namespace ctte::lab
