// HTIF, the host-target interface of Spike and its test benches (docs/platform.md, "HTIF"): two
// 64-bit words in RAM, `tohost` and `fromhost`, found by ELF symbol. A store that writes the
// upper word of tohost posts the 64-bit value (device << 56 | command << 48 | payload), as QEMU's
// spike machine takes it (a 64-bit store, or the upper half of two 32-bit stores); it is served
// at once, before the next instruction, the way Spike's front end (fesvr) answers:
//   device 0, command 0, payload bit 0 set    exit with code payload >> 1
//   device 0, command 0, payload bit 0 clear  syscall proxy: payload is the address of
//                                             magic_mem[8] = {which, arg0, arg1, arg2, ...};
//                                             only SYS_write (64) to fd 1 or 2 is served: the
//                                             bytes go to the console, magic_mem[0] = count,
//                                             fromhost = 1
//   device 1, command 1                       console putchar (payload & 0xff); fromhost =
//                                             1 << 56 | 1 << 48 | 0x100 | char
// tohost is then cleared. Anything else stops the core with a fatal platform error naming the
// request.
#include <cinttypes>
#include <cstdio>

#include "oracle/iss_impl.h"

namespace ctte::oracle {

using namespace iss_internal;  // NOLINT(google-build-using-namespace): our private header

namespace {

constexpr uint64_t kSysWrite = 64;

}  // namespace

void Iss::Impl::HtifInit(const ProgramImage& image) {
  bool have_to = false, have_from = false;
  for (const Symbol& s : image.symbols()) {
    uint8_t* const host = s.name == "tohost" || s.name == "fromhost" ? HostPtr(s.addr, 8) : nullptr;
    if (host == nullptr) continue;
    if (s.name == "tohost") {
      tohost_ = s.addr;
      tohost_host_ = host;
      have_to = true;
    } else {
      fromhost_ = s.addr;
      fromhost_host_ = host;
      have_from = true;
    }
  }
  if (!have_to) return;
  if (!have_from) {  // answers are then not written
    fromhost_ = 0;
    fromhost_host_ = nullptr;
  }
  htif_hi_ = tohost_ + 5;         // a store ending past tohost + 4 ...
  htif_span_ = 11;                // ... and starting before tohost + 8 (checked exactly below)
}

void Iss::Impl::HtifStore(uint64_t addr, size_t size) {
  if (!(addr < tohost_ + 8 && addr + size > tohost_ + 4)) return;  // not tohost's upper word
  uint64_t req = 0;
  std::memcpy(&req, tohost_host_, 8);
  if (req == 0) return;
  const uint64_t device = req >> 56, cmd = (req >> 48) & 0xff, payload = req & 0xffffffffffffULL;
  uint64_t answer = 0;
  char buf[160];
  if (device == 0 && cmd == 0 && (payload & 1) != 0) {
    stop_ = StopReason::kExited;
    exit_code_ = static_cast<int>(payload >> 1);
  } else if (device == 0 && cmd == 0) {
    uint64_t mm[4] = {};
    uint8_t* const magic = HostPtr(payload, sizeof mm);
    if (magic == nullptr) {
      std::snprintf(buf, sizeof buf,
                    "HTIF: syscall proxy magic_mem at 0x%" PRIx64 " outside RAM (tohost 0x%" PRIx64
                    ")",
                    payload, req);
      fatal_ = buf;
      stop_ = StopReason::kFatal;
      return;
    }
    std::memcpy(mm, magic, sizeof mm);
    const uint8_t* const text = HostPtr(mm[2], mm[3]);
    if (mm[0] != kSysWrite || (mm[1] != 1 && mm[1] != 2) || text == nullptr) {
      std::snprintf(buf, sizeof buf,
                    "HTIF: unsupported syscall proxy request: syscall %" PRIu64 "(%" PRIu64
                    ", 0x%" PRIx64 ", %" PRIu64 ") (only write(1 or 2, buf in RAM, n) is served)",
                    mm[0], mm[1], mm[2], mm[3]);
      fatal_ = buf;
      stop_ = StopReason::kFatal;
      return;
    }
    console_.append(reinterpret_cast<const char*>(text), mm[3]);
    std::memcpy(magic, &mm[3], 8);  // the syscall's return value
    answer = 1;
  } else if (device == 1 && cmd == 1) {
    console_.push_back(static_cast<char>(payload & 0xff));
    answer = (req >> 48 << 48) | 0x100 | (payload & 0xff);
  } else {
    std::snprintf(buf, sizeof buf,
                  "HTIF: unsupported request 0x%016" PRIx64 " (device %" PRIu64 ", command %" PRIu64
                  ", payload 0x%" PRIx64 ")",
                  req, device, cmd, payload);
    fatal_ = buf;
    stop_ = StopReason::kFatal;
    return;
  }
  std::memset(tohost_host_, 0, 8);
  if (fromhost_host_ != nullptr && answer != 0) std::memcpy(fromhost_host_, &answer, 8);
}

}  // namespace ctte::oracle
