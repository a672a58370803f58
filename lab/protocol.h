// Board protocol framing (docs/board-protocol.md): every message is one frame,
//
//   frame   = magic:"CTB1" header_len:u32le payload_len:u32le header payload
//   header  = header_len bytes of UTF-8 JSON (an object with "v": kProtocolVersion)
//   payload = payload_len raw bytes (image, captured stream), possibly empty
//
// FrameReader reads frames from a file descriptor (pipe or socket) with a deadline and reports
// malformed input with the stream byte offset where it was found.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"

namespace ctte::lab {

inline constexpr uint32_t kProtocolVersion = 1;
inline constexpr char kFrameMagic[4] = {'C', 'T', 'B', '1'};
inline constexpr uint32_t kFramePrefixBytes = 12;
inline constexpr uint32_t kMaxHeaderBytes = 1u << 20;
inline constexpr uint32_t kMaxPayloadBytes = 512u << 20;
/// FrameReader grows a payload by at most this much per read, as the bytes arrive.
inline constexpr uint32_t kPayloadChunkBytes = 1u << 20;

struct Frame {
  std::string header;            ///< JSON text
  std::vector<uint8_t> payload;
};

std::vector<uint8_t> EncodeFrame(const Frame& frame);

/// Decodes one frame from the front of `data`. Ok with *consumed set when a whole frame is
/// there; Unavailable("incomplete") when more bytes are needed; Corruption naming the offset
/// (relative to `base_offset`) when the prefix is malformed.
Result<Frame> DecodeFrame(std::span<const uint8_t> data, uint64_t base_offset, size_t* consumed);

/// Writes all bytes of a frame; IOError naming errno on failure (never raises SIGPIPE on
/// sockets). On a socket, timeout_ms >= 0 bounds the wait for the peer to take the bytes
/// (Timeout), so a hung reader cannot block the writer forever.
Status WriteFrame(int fd, const Frame& frame, int timeout_ms = -1);

class FrameReader {
 public:
  explicit FrameReader(int fd) : fd_(fd) {}
  /// Called with a frame's header and announced payload length before any payload byte is
  /// read; an error ends the read (InvalidArgument: its message and the frame's stream offset).
  using PayloadCheck = std::function<Status(const std::string& header, uint32_t payload_bytes)>;
  /// Reads the next frame. timeout_ms < 0 waits forever.
  /// Errors: Unavailable "stream closed" (EOF between frames), Corruption (bad magic, oversized
  /// lengths; EOF inside a frame, which carries FailureKind::kStreamTruncated; the message names
  /// the stream offset), Timeout, IOError, and what `check` returns.
  Result<Frame> Read(int timeout_ms, const PayloadCheck& check = {});
  uint64_t offset() const { return offset_; }

 private:
  /// Reads exactly n bytes into out. *eof_at_start is set when EOF came before any byte.
  Status ReadExact(uint8_t* out, size_t n, int64_t deadline_ms, bool* eof_at_start);
  int fd_;
  uint64_t offset_ = 0;  ///< stream bytes consumed so far
};

/// Monotonic milliseconds (for deadlines only, never for results).
int64_t MonotonicMs();

}  // namespace ctte::lab
