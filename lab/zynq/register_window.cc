// MmapWindow, MailboxWindow, MailboxServer (see register_window.h).
#include "lab/zynq/register_window.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "base/files.h"
#include "base/text.h"

namespace ctte::lab::zynq {

namespace {

uint32_t Load(const uint32_t& field) {
  return std::atomic_ref<uint32_t>(const_cast<uint32_t&>(field)).load(std::memory_order_acquire);
}
void Store(uint32_t& field, uint32_t v) {
  std::atomic_ref<uint32_t>(field).store(v, std::memory_order_release);
}

}  // namespace

// ---- MmapWindow --------------------------------------------------------------------------

Result<std::unique_ptr<MmapWindow>> MmapWindow::Open(const std::string& path, uint64_t file_offset,
                                                     uint64_t size) {
  if (size == 0) return Status::InvalidArgument(path + ": window of size 0");
  std::unique_ptr<MmapWindow> w(new MmapWindow());
  w->where_ = path + (file_offset != 0 ? " @" + Hex64(file_offset) : "");
  w->fd_ = ::open(path.c_str(), O_RDWR | O_CLOEXEC | O_SYNC);
  if (w->fd_ < 0) return ErrnoStatus(path, errno);
  const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  const uint64_t aligned = file_offset & ~(page - 1);
  const uint64_t skew = file_offset - aligned;
  w->map_len_ = static_cast<size_t>(skew + size);
  struct stat st {};
  if (::fstat(w->fd_, &st) == 0 && S_ISREG(st.st_mode) &&
      static_cast<uint64_t>(st.st_size) < file_offset + size) {
    // A regular file shorter than the window would SIGBUS on access: refuse it.
    return Status::InvalidArgument(w->where_ + ": file holds " + std::to_string(st.st_size) +
                                   " bytes, the window needs " + std::to_string(file_offset + size));
  }
  w->map_ = ::mmap(nullptr, w->map_len_, PROT_READ | PROT_WRITE, MAP_SHARED, w->fd_,
                   static_cast<off_t>(aligned));
  if (w->map_ == MAP_FAILED) {
    w->map_ = nullptr;
    return Status::IOError(w->where_ + ": mmap of " + std::to_string(size) +
                           " bytes failed: " + std::strerror(errno));
  }
  w->base_ = static_cast<uint8_t*>(w->map_) + skew;
  w->size_ = size;
  return w;
}

MmapWindow::~MmapWindow() {
  if (map_ != nullptr) ::munmap(map_, map_len_);
  if (fd_ >= 0) ::close(fd_);
}

Status MmapWindow::Check(uint64_t offset, uint64_t n) const {
  if (offset > size_ || n > size_ - offset) {
    return Status::InvalidArgument(where_ + ": offset " + HexShort(offset) + " (+" +
                                   std::to_string(n) + ") outside the " + std::to_string(size_) +
                                   "-byte window");
  }
  return Status::Ok();
}

Result<uint32_t> MmapWindow::Read32(uint32_t offset) {
  if (offset % 4 != 0) return Status::InvalidArgument(where_ + ": unaligned read at " + HexShort(offset));
  CTTE_RETURN_IF_ERROR(Check(offset, 4));
  return Load32(offset);
}

Status MmapWindow::Write32(uint32_t offset, uint32_t value) {
  if (offset % 4 != 0) return Status::InvalidArgument(where_ + ": unaligned write at " + HexShort(offset));
  CTTE_RETURN_IF_ERROR(Check(offset, 4));
  Store32(offset, value);
  return Status::Ok();
}

// Device memory (a UIO map is mapped non-cached: Device-nGnRnE on arm64) takes only aligned
// accesses of the width the bus carries: every byte copy is made of aligned volatile 64-bit
// words where both sides line up, else aligned 32-bit words, and a partial word at either end
// is read, merged and written back whole. Never memcpy (which may access unaligned or
// overlapping words).
uint32_t MmapWindow::Load32(uint64_t at) const {
  if (observer_) observer_(at, 4, false);
  return *reinterpret_cast<volatile const uint32_t*>(base_ + at);
}
void MmapWindow::Store32(uint64_t at, uint32_t v) {
  if (observer_) observer_(at, 4, true);
  *reinterpret_cast<volatile uint32_t*>(base_ + at) = v;
}

Status MmapWindow::WriteBytes(uint64_t offset, const void* data, size_t n) {
  CTTE_RETURN_IF_ERROR(Check(offset, n));
  if (n != 0 && ((offset + n + 3) & ~uint64_t{3}) > size_) {
    return Status::InvalidArgument(where_ + ": a copy at " + HexShort(offset) + " (+" +
                                   std::to_string(n) + ") needs whole words past the window");
  }
  const uint8_t* src = static_cast<const uint8_t*>(data);
  uint64_t at = offset;
  size_t left = n;
  while (left > 0) {
    const uint64_t word = at & ~uint64_t{3};
    const unsigned skew = static_cast<unsigned>(at - word);
    if (skew == 0 && left >= 8 && at % 8 == 0) {
      uint64_t v;
      std::memcpy(&v, src, 8);  // from the caller's (normal) memory into a register
      if (observer_) observer_(at, 8, true);
      *reinterpret_cast<volatile uint64_t*>(base_ + at) = v;
      at += 8, src += 8, left -= 8;
      continue;
    }
    const size_t take = std::min<size_t>(4 - skew, left);
    uint32_t v = 0;
    if (skew != 0 || take < 4) v = Load32(word);  // a partial word: merge with what is there
    std::memcpy(reinterpret_cast<uint8_t*>(&v) + skew, src, take);
    Store32(word, v);
    at += take, src += take, left -= take;
  }
  return Status::Ok();
}

Status MmapWindow::ReadBytes(uint64_t offset, void* out, size_t n) const {
  CTTE_RETURN_IF_ERROR(Check(offset, n));
  if (n != 0 && ((offset + n + 3) & ~uint64_t{3}) > size_) {
    return Status::InvalidArgument(where_ + ": a copy at " + HexShort(offset) + " (+" +
                                   std::to_string(n) + ") needs whole words past the window");
  }
  uint8_t* dst = static_cast<uint8_t*>(out);
  uint64_t at = offset;
  size_t left = n;
  while (left > 0) {
    const uint64_t word = at & ~uint64_t{3};
    const unsigned skew = static_cast<unsigned>(at - word);
    if (skew == 0 && left >= 8 && at % 8 == 0) {
      if (observer_) observer_(at, 8, false);
      const uint64_t v = *reinterpret_cast<volatile const uint64_t*>(base_ + at);
      std::memcpy(dst, &v, 8);
      at += 8, dst += 8, left -= 8;
      continue;
    }
    const size_t take = std::min<size_t>(4 - skew, left);
    const uint32_t v = Load32(word);
    std::memcpy(dst, reinterpret_cast<const uint8_t*>(&v) + skew, take);
    at += take, dst += take, left -= take;
  }
  return Status::Ok();
}

// ---- MailboxWindow -------------------------------------------------------------------------

Result<std::unique_ptr<MailboxWindow>> MailboxWindow::Open(const std::string& path,
                                                           int timeout_ms) {
  std::unique_ptr<MailboxWindow> w(new MailboxWindow());
  w->where_ = path + " (emulated register window)";
  w->timeout_ms_ = timeout_ms;
  w->fd_ = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (w->fd_ < 0) return ErrnoStatus(path, errno);
  struct stat st {};
  if (::fstat(w->fd_, &st) != 0 || static_cast<size_t>(st.st_size) < sizeof(MailboxSlot)) {
    return Status::Unavailable(w->where_ + ": not a mailbox (no fabric emulator serves it)");
  }
  void* m = ::mmap(nullptr, sizeof(MailboxSlot), PROT_READ | PROT_WRITE, MAP_SHARED, w->fd_, 0);
  if (m == MAP_FAILED) return Status::IOError(w->where_ + ": mmap: " + std::strerror(errno));
  w->slot_ = static_cast<MailboxSlot*>(m);
  if (Load(w->slot_->magic) != kMailboxMagic) {
    return Status::Unavailable(w->where_ + ": not a mailbox (no fabric emulator serves it)");
  }
  w->size_ = Load(w->slot_->window_size);
  return w;
}

MailboxWindow::~MailboxWindow() {
  if (slot_ != nullptr) ::munmap(slot_, sizeof(MailboxSlot));
  if (fd_ >= 0) ::close(fd_);
}

Result<uint32_t> MailboxWindow::Transact(uint32_t op, uint32_t offset, uint32_t value) {
  if (offset % 4 != 0 || offset + 4ull > size_) {
    return Status::InvalidArgument(where_ + ": offset " + HexShort(offset) + " outside the " +
                                   std::to_string(size_) + "-byte window or unaligned");
  }
  const uint32_t seq = Load(slot_->answered) + 1;
  slot_->op = op;
  slot_->offset = offset;
  slot_->value = value;
  Store(slot_->request, seq);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms_);
  for (int spins = 0; Load(slot_->answered) != seq; ++spins) {
    if (spins > 200) std::this_thread::sleep_for(std::chrono::microseconds(50));
    if (std::chrono::steady_clock::now() > deadline) {
      return Status::Unavailable(where_ + ": no answer to the " +
                                 (op == kMailboxOpRead ? std::string("read") : "write") + " of " +
                                 HexShort(offset) + " within " + std::to_string(timeout_ms_) +
                                 " ms (is the fabric emulator running?)");
    }
  }
  if (Load(slot_->error) != 0) {
    return Status::IOError(where_ + ": bus error at " + HexShort(offset) +
                           " (the loaded design has no register there)");
  }
  return Load(slot_->value);
}

Result<uint32_t> MailboxWindow::Read32(uint32_t offset) {
  return Transact(kMailboxOpRead, offset, 0);
}

Status MailboxWindow::Write32(uint32_t offset, uint32_t value) {
  Result<uint32_t> r = Transact(kMailboxOpWrite, offset, value);
  return r.ok() ? Status::Ok() : r.status();
}

// ---- MailboxServer -------------------------------------------------------------------------

Result<std::unique_ptr<MailboxServer>> MailboxServer::Create(const std::string& path,
                                                             uint32_t window_size) {
  std::unique_ptr<MailboxServer> s(new MailboxServer());
  s->fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (s->fd_ < 0) return ErrnoStatus(path, errno);
  const long page = ::sysconf(_SC_PAGESIZE);
  if (::ftruncate(s->fd_, page) != 0) return ErrnoStatus(path, errno);
  void* m = ::mmap(nullptr, sizeof(MailboxSlot), PROT_READ | PROT_WRITE, MAP_SHARED, s->fd_, 0);
  if (m == MAP_FAILED) return Status::IOError(path + ": mmap: " + std::strerror(errno));
  s->slot_ = static_cast<MailboxSlot*>(m);
  std::memset(s->slot_, 0, sizeof(MailboxSlot));
  s->slot_->window_size = window_size;
  Store(s->slot_->magic, kMailboxMagic);
  return s;
}

MailboxServer::~MailboxServer() {
  if (slot_ != nullptr) {
    Store(slot_->magic, 0);
    ::munmap(slot_, sizeof(MailboxSlot));
  }
  if (fd_ >= 0) ::close(fd_);
}

bool MailboxServer::Peek(uint32_t* op, uint32_t* offset) const {
  if (Load(slot_->request) == Load(slot_->answered)) return false;
  *op = slot_->op;
  *offset = slot_->offset;
  return true;
}

bool MailboxServer::Poll(const Handler& handler) {
  const uint32_t seq = Load(slot_->request);
  if (seq == Load(slot_->answered)) return false;
  uint32_t value = slot_->value;
  const bool ok = handler(slot_->op, slot_->offset, &value);
  slot_->value = value;
  slot_->error = ok ? 0 : 1;
  Store(slot_->answered, seq);
  return true;
}

}  // namespace ctte::lab::zynq
