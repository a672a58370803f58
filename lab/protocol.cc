// Board protocol framing: encode, decode, and deadline-bounded reads on a descriptor.
#include "lab/protocol.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <ctime>

#include "lab/failure.h"

namespace ctte::lab {

namespace {
uint32_t GetU32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

// Checks a 12-byte prefix; returns the lengths.
Status CheckPrefix(const uint8_t* p, uint64_t offset, uint32_t* hlen, uint32_t* plen) {
  if (std::memcmp(p, kFrameMagic, 4) != 0) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "bad frame magic %02x %02x %02x %02x at stream offset %llu",
                  p[0], p[1], p[2], p[3], static_cast<unsigned long long>(offset));
    return Status::Corruption(buf);
  }
  *hlen = GetU32(p + 4);
  *plen = GetU32(p + 8);
  if (*hlen == 0 || *hlen > kMaxHeaderBytes) {
    return Status::Corruption("frame header length " + std::to_string(*hlen) +
                              " out of range [1, " + std::to_string(kMaxHeaderBytes) +
                              "] at stream offset " + std::to_string(offset + 4));
  }
  if (*plen > kMaxPayloadBytes) {
    return Status::Corruption("frame payload length " + std::to_string(*plen) + " exceeds " +
                              std::to_string(kMaxPayloadBytes) + " at stream offset " +
                              std::to_string(offset + 8));
  }
  return Status::Ok();
}
}  // namespace

int64_t MonotonicMs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1'000'000;
}

namespace {
// The prefix for a payload of `plen` bytes, then the header (room for `reserve` more bytes).
std::vector<uint8_t> EncodeHead(const std::string& header, uint32_t plen, size_t reserve) {
  const uint32_t hlen = static_cast<uint32_t>(header.size());
  uint8_t prefix[kFramePrefixBytes];
  std::memcpy(prefix, kFrameMagic, 4);
  for (int i = 0; i < 4; ++i) {
    prefix[4 + i] = static_cast<uint8_t>(hlen >> (8 * i));
    prefix[8 + i] = static_cast<uint8_t>(plen >> (8 * i));
  }
  std::vector<uint8_t> out(prefix, prefix + kFramePrefixBytes);
  out.reserve(kFramePrefixBytes + hlen + reserve);
  const auto* h = reinterpret_cast<const uint8_t*>(header.data());
  out.insert(out.end(), h, h + hlen);
  return out;
}
}  // namespace

std::vector<uint8_t> EncodeFrame(const Frame& frame) {
  std::vector<uint8_t> out = EncodeHead(
      frame.header, static_cast<uint32_t>(frame.payload.size()), frame.payload.size());
  out.insert(out.end(), frame.payload.begin(), frame.payload.end());
  return out;
}

Result<Frame> DecodeFrame(std::span<const uint8_t> data, uint64_t base_offset,
                          size_t* consumed) {
  *consumed = 0;
  if (data.size() < kFramePrefixBytes) return Status::Unavailable("incomplete");
  uint32_t hlen = 0, plen = 0;
  CTTE_RETURN_IF_ERROR(CheckPrefix(data.data(), base_offset, &hlen, &plen));
  const size_t total = kFramePrefixBytes + static_cast<size_t>(hlen) + plen;
  if (data.size() < total) return Status::Unavailable("incomplete");
  Frame f;
  f.header.assign(reinterpret_cast<const char*>(data.data()) + kFramePrefixBytes, hlen);
  f.payload.assign(data.begin() + kFramePrefixBytes + hlen, data.begin() + static_cast<long>(total));
  *consumed = total;
  return f;
}

Status WriteFrame(int fd, const Frame& frame, int timeout_ms) {
  if (frame.header.size() > kMaxHeaderBytes || frame.payload.size() > kMaxPayloadBytes) {
    return Status::InvalidArgument("frame too large to send");
  }
  // The prefix and header in one small buffer, the payload (a capture, an image) sent from
  // where it is: the bytes on the wire are EncodeFrame's, without copying the payload.
  const std::vector<uint8_t> head =
      EncodeHead(frame.header, static_cast<uint32_t>(frame.payload.size()), 0);
  const int64_t deadline = timeout_ms < 0 ? -1 : MonotonicMs() + timeout_ms;
  const size_t total = head.size() + frame.payload.size();
  size_t done = 0;
  while (done < total) {
    iovec iov[2];
    int parts = 0;
    if (done < head.size()) {
      iov[parts++] = {const_cast<uint8_t*>(head.data()) + done, head.size() - done};
      if (!frame.payload.empty()) {
        iov[parts++] = {const_cast<uint8_t*>(frame.payload.data()), frame.payload.size()};
      }
    } else {
      const size_t off = done - head.size();
      iov[parts++] = {const_cast<uint8_t*>(frame.payload.data()) + off,
                      frame.payload.size() - off};
    }
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = static_cast<size_t>(parts);
    ssize_t n = ::sendmsg(fd, &msg, MSG_NOSIGNAL | (deadline >= 0 ? MSG_DONTWAIT : 0));
    if (n < 0 && errno == ENOTSOCK) n = ::writev(fd, iov, parts);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && deadline >= 0) {
      const int64_t left = deadline - MonotonicMs();
      if (left <= 0) return Status::Timeout("board stream not accepting data");
      pollfd pfd{fd, POLLOUT, 0};
      (void)::poll(&pfd, 1, static_cast<int>(left));
      continue;
    }
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::IOError(std::string("write to board stream: ") + std::strerror(errno));
    }
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

Status FrameReader::ReadExact(uint8_t* out, size_t n, int64_t deadline_ms, bool* eof_at_start) {
  *eof_at_start = false;
  size_t got = 0;
  while (got < n) {
    int wait = -1;
    if (deadline_ms >= 0) {
      const int64_t left = deadline_ms - MonotonicMs();
      if (left <= 0) return Status::Timeout("no data from board stream");
      wait = static_cast<int>(left);
    }
    pollfd pfd{fd_, POLLIN, 0};
    const int pr = ::poll(&pfd, 1, wait);
    if (pr < 0) {
      if (errno == EINTR) continue;
      return Status::IOError(std::string("poll on board stream: ") + std::strerror(errno));
    }
    if (pr == 0) return Status::Timeout("no data from board stream");
    const ssize_t r = ::read(fd_, out + got, n - got);
    if (r < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      if (errno == ECONNRESET && got == 0) {
        *eof_at_start = true;
        return Status::Unavailable("stream closed");
      }
      return Status::IOError(std::string("read from board stream: ") + std::strerror(errno));
    }
    if (r == 0) {
      if (got == 0) {
        *eof_at_start = true;
        return Status::Unavailable("stream closed");
      }
      return StreamTruncatedError("stream ended inside a frame at stream offset " +
                                std::to_string(offset_ + got));
    }
    got += static_cast<size_t>(r);
  }
  offset_ += n;
  return Status::Ok();
}

Result<Frame> FrameReader::Read(int timeout_ms, const PayloadCheck& check) {
  const int64_t deadline = timeout_ms < 0 ? -1 : MonotonicMs() + timeout_ms;
  uint8_t prefix[kFramePrefixBytes];
  bool eof = false;
  const uint64_t start = offset_;
  Status s = ReadExact(prefix, sizeof prefix, deadline, &eof);
  if (!s.ok()) return s;
  uint32_t hlen = 0, plen = 0;
  CTTE_RETURN_IF_ERROR(CheckPrefix(prefix, start, &hlen, &plen));
  Frame f;
  f.header.resize(hlen);
  s = ReadExact(reinterpret_cast<uint8_t*>(f.header.data()), hlen, deadline, &eof);
  if (eof) s = StreamTruncatedError("stream ended inside a frame at stream offset " +
                                  std::to_string(offset_));
  if (!s.ok()) return s;
  if (check) {
    const Status c = check(f.header, plen);
    if (!c.ok()) {
      return Status::InvalidArgument(c.message() + " (frame at stream offset " +
                                     std::to_string(start) + ")");
    }
  }
  // The payload grows as its bytes arrive (kPayloadChunkBytes at a time): a prefix announcing a
  // large payload pins no memory before the peer has sent the bytes.
  while (f.payload.size() < plen) {
    const size_t have = f.payload.size();
    const size_t n = std::min<size_t>(kPayloadChunkBytes, plen - have);
    f.payload.resize(have + n);
    s = ReadExact(f.payload.data() + have, n, deadline, &eof);
    if (eof) s = StreamTruncatedError("stream ended inside a frame at stream offset " +
                                    std::to_string(offset_));
    if (!s.ok()) return s;
  }
  return f;
}

}  // namespace ctte::lab
