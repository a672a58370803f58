#include "lab/capture_ring.h"

#include <algorithm>

#include "base/check.h"

namespace ctte::lab {
namespace {
constexpr uint64_t kInitialReserve = 64 * 1024;  // most streams are below 64 KiB
}  // namespace

CaptureRing::CaptureRing(uint64_t capacity) : capacity_(capacity) {
  CTTE_CHECK(capacity > 0, "capture ring capacity must be positive");
  buf_.reserve(static_cast<size_t>(std::min<uint64_t>(capacity, kInitialReserve)));
}

void CaptureRing::Push(const uint8_t* bytes, size_t n) {
  // Filling: append what fits; the rest (once full) goes one byte at a time around head_.
  const size_t fill = static_cast<size_t>(std::min<uint64_t>(n, capacity_ - buf_.size()));
  buf_.insert(buf_.end(), bytes, bytes + fill);
  total_ += fill;
  for (size_t i = fill; i < n; ++i) Push(bytes[i]);
}

std::vector<uint8_t> CaptureRing::TakeContents() {
  std::vector<uint8_t> out = wrapped() ? Contents() : std::move(buf_);
  buf_.clear();
  head_ = 0;
  return out;
}

std::vector<uint8_t> CaptureRing::Contents() const {
  if (!wrapped()) return buf_;
  std::vector<uint8_t> out;
  out.reserve(buf_.size());
  out.insert(out.end(), buf_.begin() + static_cast<long>(head_), buf_.end());
  out.insert(out.end(), buf_.begin(), buf_.begin() + static_cast<long>(head_));
  return out;
}

}  // namespace ctte::lab
