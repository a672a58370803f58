// The capture ring: a fixed-size byte buffer in front of the board's trace sink. When more
// bytes arrive than it holds, the oldest are overwritten and the capture is flagged wrapped
// (such a capture is an invalid measurement, DESIGN.md section 4). The buffer grows with the
// bytes received up to its capacity, so a large ring costs only the memory its stream fills.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ctte::lab {

class CaptureRing {
 public:
  explicit CaptureRing(uint64_t capacity);
  void Push(uint8_t byte) {
    ++total_;
    if (buf_.size() < capacity_) {
      buf_.push_back(byte);  // filling: head_ stays 0, the oldest byte is buf_[0]
      return;
    }
    buf_[head_] = byte;
    if (++head_ == capacity_) head_ = 0;
  }
  /// Push() of each of bytes[0, n), in order.
  void Push(const uint8_t* bytes, size_t n);
  bool wrapped() const { return total_ > capacity_; }
  uint64_t total() const { return total_; }
  uint64_t capacity() const { return capacity_; }
  /// The retained bytes, oldest first (the last min(total, capacity) bytes received).
  std::vector<uint8_t> Contents() const;
  /// Contents(), leaving the ring empty of retained bytes (total() and wrapped() unchanged):
  /// an unwrapped ring hands over its buffer without a copy.
  std::vector<uint8_t> TakeContents();

 private:
  uint64_t capacity_;
  std::vector<uint8_t> buf_;  ///< min(total_, capacity_) bytes
  uint64_t head_ = 0;   ///< next write position once full
  uint64_t total_ = 0;  ///< bytes ever pushed
};

}  // namespace ctte::lab
