// The capture ring: a fixed-size byte buffer in front of the board's trace sink. When more
// bytes arrive than it holds, the oldest are overwritten and the capture is flagged wrapped
// (such a capture is an invalid measurement, DESIGN.md section 4).
#pragma once

#include <cstdint>
#include <vector>

namespace ctte::lab {

class CaptureRing {
 public:
  explicit CaptureRing(uint64_t capacity);
  void Push(uint8_t byte) {
    buf_[head_] = byte;
    if (++head_ == buf_.size()) head_ = 0;
    ++total_;
  }
  bool wrapped() const { return total_ > buf_.size(); }
  uint64_t total() const { return total_; }
  uint64_t capacity() const { return buf_.size(); }
  /// The retained bytes, oldest first (the last min(total, capacity) bytes received).
  std::vector<uint8_t> Contents() const;

 private:
  std::vector<uint8_t> buf_;
  uint64_t head_ = 0;   ///< next write position
  uint64_t total_ = 0;  ///< bytes ever pushed
};

}  // namespace ctte::lab
