// MDO/MSEO packer: turns Message values into N-Trace bytes exactly as
// docs/encoder-behaviour.md section 8 prescribes (fixed fields bit-packed from MDO bit 0, each
// variable field in the leftover bits then the fewest whole MDOs, MSEO 01/11 on its last byte).
// Stateless apart from the stream format; safe to share between threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "oracle/ntrace_message.h"

namespace ctte::oracle {

class MessageWriter {
 public:
  explicit MessageWriter(StreamFormat format = {}) : format_(format) {}

  /// Appends the bytes of `msg` to *out and returns how many were appended. Every field of the
  /// TCODE's layout must be present (a broken invariant of the caller otherwise); fixed fields
  /// must fit their widths.
  size_t Append(const Message& msg, std::vector<uint8_t>* out) const;

 private:
  StreamFormat format_;
};

}  // namespace ctte::oracle
