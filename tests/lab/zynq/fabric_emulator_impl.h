// The fabric emulator's state, shared by its two files: fabric_emulator.cc (layout, registers,
// clocks, the core) and fabric_overlay.cc (configfs, the overlay, the UIO devices, the load).
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/files.h"
#include "lab/sim/sim_board.h"
#include "lab/zynq/register_window.h"
#include "lab/zynq/sysfs.h"
#include "tests/lab/zynq/fabric_emulator.h"

namespace ctte::lab::zynq {

namespace fs = std::filesystem;

struct FabricEmulator::Impl {
  FabricEmulatorOptions o;
  std::unique_ptr<SimBoard> board;
  std::unique_ptr<MailboxServer> mailbox;
  std::unique_ptr<MmapWindow> guest, plan, ring, crl;
  std::map<uint32_t, std::string> names;  ///< the loaded design's map, by offset
  std::map<std::string, uint32_t> harness; ///< harness register values, by name
  std::thread loop, worker;
  std::atomic<bool> stop{false}, running{false};
  mutable std::mutex mu;   ///< error
  std::mutex hmu;          ///< harness
  std::string error;

  std::string P(const std::string& rel) const { return UnderRoot(o.sysroot, rel); }
  void Fail(const std::string& e) {
    std::lock_guard<std::mutex> l(mu);
    error = e;
  }
  std::map<std::string, std::vector<int>> overlays;  ///< applied overlay -> its UIO devices
  struct ClockCounter {
    bool started = false;
    uint64_t count = 0, rate = 0;
    std::chrono::steady_clock::time_point t;
  } clocks[2];  ///< the harness's free-running counters of PL0 (fabric) and PL1 (sink)
  uint64_t ClockRate(int pl);
  uint64_t ClockCount(int pl);
  Status Layout();
  void WatchOverlays();
  Status ApplyOverlay(const std::string& name, const std::string& dtbo, std::vector<int>* uio);
  void RemoveDevices(const std::vector<int>& uio);
  Status CreateUio(int index, const std::string& name, uint64_t size);
  Status Load(const std::string& name);
  bool Handle(uint32_t op, uint32_t offset, uint32_t* value);
  void RunCore();
  Status RunCoreOr();
  void Loop();
  void SetH(const std::string& n, uint32_t v) { harness[n] = v; }
  void SetH64(const std::string& lo, const std::string& hi, uint64_t v) {
    harness[lo] = static_cast<uint32_t>(v);
    harness[hi] = static_cast<uint32_t>(v >> 32);
  }
  void SetResultText(const std::string& text);  // the plan memory's result area
  Status WriteConsole(const std::string& text);   // and its console area
};

inline Status WriteText(const std::string& path, const std::string& text) {
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  return WriteFileAtomic(path, std::vector<uint8_t>(text.begin(), text.end()));
}

inline Status SparseFile(const std::string& path, uint64_t size) {
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return ErrnoStatus(path, errno);
  const int rc = ::ftruncate(fd, static_cast<off_t>(size));
  ::close(fd);
  return rc == 0 ? Status::Ok() : ErrnoStatus(path, errno);
}

inline constexpr const char* kOverlays = "sys/kernel/config/device-tree/overlays";

inline std::string HexAttr(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%08llx", static_cast<unsigned long long>(v));
  return buf;
}


}  // namespace ctte::lab::zynq
