// N-Trace byte stream -> messages, with byte offsets.
//
// Contract: a MessageReader reads one complete in-memory stream, front to back, from one
// thread. Next() yields the next well-formed message of a standard TCODE. Everything else goes
// to the Reporter, synchronously, before Next() returns:
//  - idle bytes (0xFF between messages) are skipped silently and counted;
//  - a well-framed message with a vendor or reserved TCODE is reported through Skipped();
//  - a reserved MSEO (10), a message longer than max_message_bytes, a truncated final message,
//    a variable field with more than 64 significant bits, a fixed field that crosses a field end,
//    or a message whose fields do not match its TCODE's layout is reported through Corruption()
//    with the byte offset, and the reader then skips every message up to the next one that
//    carries SYNC (reporting the skipped bytes once that sync is found, or at the end).
// In the spirit of leveldb's log::Reader::Reporter: the reader never aborts on bad input.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "oracle/ntrace_message.h"

namespace ctte::oracle {

class MessageReader {
 public:
  class Reporter {
   public:
    virtual ~Reporter() = default;
    /// `bytes` bytes starting at `offset` were dropped because of `reason`. After it, the
    /// reader's next message (if any) carries SYNC.
    virtual void Corruption(uint64_t offset, uint64_t bytes, const std::string& reason) = 0;
    /// A well-framed message of a vendor or reserved TCODE was skipped.
    virtual void Skipped(const Message& msg, const std::string& reason) {
      (void)msg;
      (void)reason;
    }
  };

  struct Options {
    StreamFormat format;
    /// Longest message accepted (the spec's maximum standard message is 38 bytes; extra zero
    /// MDOs are legal, so we allow some slack).
    uint32_t max_message_bytes = 64;
  };

  /// `bytes` must outlive the reader. `reporter` may be null (problems are then only counted).
  MessageReader(std::span<const uint8_t> bytes, Reporter* reporter, Options options);
  MessageReader(std::span<const uint8_t> bytes, Reporter* reporter)
      : MessageReader(bytes, reporter, Options{}) {}

  /// Stores the next message in *msg; false at the end of the stream.
  bool Next(Message* msg);

  uint64_t offset() const { return pos_; }
  uint64_t idle_bytes() const { return idle_bytes_; }
  uint64_t dropped_bytes() const { return dropped_bytes_; }
  uint64_t corruptions() const { return corruptions_; }
  uint64_t skipped_messages() const { return skipped_messages_; }

 private:
  enum class Parse { kOk, kBad };
  /// Decodes the framed message bytes_[start, end) into *msg; on failure sets *why.
  Parse ParseFields(uint64_t start, uint64_t end, Message* msg, std::string* why) const;
  void ReportCorruption(uint64_t offset, uint64_t bytes, const std::string& reason);
  void ReportSkip(const Message& msg, const std::string& reason);
  void FlushResyncSkip();

  std::span<const uint8_t> bytes_;
  Reporter* reporter_;
  Options options_;
  uint64_t pos_ = 0;
  bool want_sync_ = false;        ///< after a corruption: skip until a message with SYNC
  uint64_t resync_start_ = 0;     ///< first byte skipped while waiting for SYNC
  uint64_t resync_bytes_ = 0;
  uint64_t resync_messages_ = 0;
  uint64_t idle_bytes_ = 0;
  uint64_t dropped_bytes_ = 0;
  uint64_t corruptions_ = 0;
  uint64_t skipped_messages_ = 0;
};

}  // namespace ctte::oracle
