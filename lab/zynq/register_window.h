// Register and memory windows of a ZynqBoard: how the board reaches the programmable logic.
//
// RegisterWindow: 32-bit accesses at byte offsets of one window. Two implementations:
//  - MmapWindow: an mmap() of a device file, accesses through volatile 32-bit loads/stores.
//    This is what a board uses: a UIO map (/dev/uioN, map i at file offset i * page size), the
//    devmem window on CRL_APB (/dev/mem at the physical address) and the DMA buffer
//    (/dev/udmabufN). On a regular file (a fixture tree) it is a plain shared file mapping: no
//    side effects, which is right for memory (guest RAM, the ring) and for the clock registers,
//    and wrong for the design's register file.
//  - MailboxWindow: the design's register file as served by the fabric emulator (tests): a
//    shared-memory file holding one request slot; every access is one request the emulator
//    answers, so reads and writes have the design's side effects (docs/zynq-board.md, "The
//    fabric emulator"). MailboxServer is the emulator's side of it.
// Offsets are bounds- and alignment-checked; errors name the file and the offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "base/status.h"

namespace ctte::lab::zynq {

class RegisterWindow {
 public:
  virtual ~RegisterWindow() = default;
  virtual Result<uint32_t> Read32(uint32_t offset) = 0;
  virtual Status Write32(uint32_t offset, uint32_t value) = 0;
  virtual uint64_t size() const = 0;
  virtual const std::string& where() const = 0;  ///< for messages: the file (and map)
};

class MmapWindow : public RegisterWindow {
 public:
  /// Maps `size` bytes of `path` at file offset `file_offset` (page aligned), read-write shared.
  static Result<std::unique_ptr<MmapWindow>> Open(const std::string& path, uint64_t file_offset,
                                                  uint64_t size);
  ~MmapWindow() override;
  Result<uint32_t> Read32(uint32_t offset) override;
  Status Write32(uint32_t offset, uint32_t value) override;
  uint64_t size() const override { return size_; }
  const std::string& where() const override { return where_; }
  /// Bulk access (memory windows: guest RAM, plan memory, the ring), any offset and length,
  /// through aligned volatile 64/32-bit accesses only (partial words read, merged, written
  /// whole): what Device memory takes. A copy whose whole words leave the window is refused.
  Status WriteBytes(uint64_t offset, const void* data, size_t n);
  Status ReadBytes(uint64_t offset, void* out, size_t n) const;
  /// Sees every access made to the map (offset in the window, width 4 or 8): tests check
  /// that each is aligned to its width.
  using AccessObserver = std::function<void(uint64_t offset, unsigned width, bool write)>;
  void set_access_observer(AccessObserver o) { observer_ = std::move(o); }

 private:
  MmapWindow() = default;
  Status Check(uint64_t offset, uint64_t n) const;
  uint32_t Load32(uint64_t at) const;
  void Store32(uint64_t at, uint32_t v);
  AccessObserver observer_;
  int fd_ = -1;
  void* map_ = nullptr;
  size_t map_len_ = 0;
  uint8_t* base_ = nullptr;  ///< map_ + the in-page part of the offset
  uint64_t size_ = 0;
  std::string where_;
};

/// The shared page both sides map (layout fixed: the file is the interface).
struct MailboxSlot {
  uint32_t magic;      ///< kMailboxMagic once the server is up
  uint32_t request;    ///< sequence number of the posted request (client writes last)
  uint32_t answered;   ///< sequence number of the last answered request (server writes last)
  uint32_t op;         ///< 1 read, 2 write
  uint32_t offset;
  uint32_t value;      ///< write data, or read result
  uint32_t error;      ///< 0 ok; 1 bus error (no register there)
  uint32_t window_size;
};
inline constexpr uint32_t kMailboxMagic = 0x43545445;  // "CTTE"
inline constexpr uint32_t kMailboxOpRead = 1, kMailboxOpWrite = 2;

class MailboxWindow : public RegisterWindow {
 public:
  /// Opens the mailbox file; fails when no emulator has initialised it.
  static Result<std::unique_ptr<MailboxWindow>> Open(const std::string& path, int timeout_ms);
  ~MailboxWindow() override;
  Result<uint32_t> Read32(uint32_t offset) override;
  Status Write32(uint32_t offset, uint32_t value) override;
  uint64_t size() const override { return size_; }
  const std::string& where() const override { return where_; }

 private:
  MailboxWindow() = default;
  Result<uint32_t> Transact(uint32_t op, uint32_t offset, uint32_t value);
  int fd_ = -1;
  MailboxSlot* slot_ = nullptr;
  uint64_t size_ = 0;
  int timeout_ms_ = 0;
  std::string where_;
};

/// The emulator's side: creates/initialises the mailbox file and answers requests.
class MailboxServer {
 public:
  /// handler(op, offset, value in/out) -> true: ok; false: bus error.
  using Handler = std::function<bool(uint32_t op, uint32_t offset, uint32_t* value)>;
  static Result<std::unique_ptr<MailboxServer>> Create(const std::string& path,
                                                       uint32_t window_size);
  ~MailboxServer();
  /// Answers the pending request, if any; returns true when one was answered.
  bool Poll(const Handler& handler);
  /// True when a request is posted and not yet answered; sets its op and offset.
  bool Peek(uint32_t* op, uint32_t* offset) const;

 private:
  MailboxServer() = default;
  int fd_ = -1;
  MailboxSlot* slot_ = nullptr;
};

}  // namespace ctte::lab::zynq
