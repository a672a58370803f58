// configfs overlay and the private bitstream store (see overlay.h).
#include "lab/zynq/overlay.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <thread>

#include "base/files.h"
#include "lab/zynq/sysfs.h"

namespace ctte::lab::zynq {

namespace {
using Clock = std::chrono::steady_clock;
constexpr const char* kOverlays = "sys/kernel/config/device-tree/overlays";
constexpr uint64_t kConfigfsMagic = 0x62656570;  // linux/magic.h CONFIGFS_MAGIC
}  // namespace

std::string OverlayDir(const OverlayOptions& o) {
  return UnderRoot(o.sysroot, std::string(kOverlays) + "/" + o.name);
}

Status RemoveOverlay(const OverlayOptions& o) {
  const std::string dir = OverlayDir(o);
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return Status::Ok();
  // On configfs the attributes go with the folder. A fixture tree is a plain folder (not
  // configfs, by statfs) whose kernel stand-in re-creates missing attributes: it is renamed
  // out of the way in one step (a dot name the stand-in ignores), then removed.
  struct statfs fs {};
  if (::statfs(dir.c_str(), &fs) == 0 && static_cast<uint64_t>(fs.f_type) != kConfigfsMagic) {
    const std::string gone = UnderRoot(o.sysroot, std::string(kOverlays) + "/." + o.name +
                                                      "-removed-" + std::to_string(::getpid()));
    if (::rename(dir.c_str(), gone.c_str()) != 0) {
      return WithPrefix(ErrnoStatus(dir, errno), "removing the previous overlay");
    }
    std::filesystem::remove_all(gone, ec);
    return Status::Ok();
  }
  if (::rmdir(dir.c_str()) != 0) {
    return WithPrefix(ErrnoStatus(dir, errno), "removing the previous overlay");
  }
  return Status::Ok();
}

Status ApplyOverlay(const OverlayOptions& o) {
  const std::string root = UnderRoot(o.sysroot, kOverlays);
  std::error_code ec;
  if (!std::filesystem::is_directory(root, ec)) {
    return Status::NotFound(root + ": no configfs device-tree overlay interface (mount -t "
                            "configfs none /sys/kernel/config; a kernel with CONFIG_OF_OVERLAY "
                            "and the configfs overlay support, as the Xilinx kernels have)");
  }
  const std::string dtbo = UnderRoot(o.sysroot, "lib/firmware/" + o.dtbo);
  if (!std::filesystem::is_regular_file(dtbo, ec)) {
    return Status::NotFound(dtbo + ": the harness overlay is not installed (build it from "
                            "lab/zynq/ctte-harness.dtso, docs/zynq-board.md); nothing loaded");
  }
  const std::string dir = OverlayDir(o);
  if (::mkdir(dir.c_str(), 0755) != 0) return ErrnoStatus(dir, errno);
  const auto deadline = Clock::now() + std::chrono::milliseconds(o.timeout_ms);
  const auto wait = [&](const char* what) -> Status {
    if (Clock::now() > deadline) {
      return Status::Unavailable(dir + ": " + what + " within " + std::to_string(o.timeout_ms) +
                                 " ms");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    return Status::Ok();
  };
  // configfs gives a new folder its attributes at mkdir; a fixture's kernel takes a moment.
  while (!std::filesystem::exists(dir + "/status", ec)) {
    CTTE_RETURN_IF_ERROR(wait("no status attribute appeared"));
  }
  CTTE_RETURN_IF_ERROR(WriteAttr(dir + "/path", o.dtbo));
  // The kernel applies within the write (an error fails the write); a fixture answers after.
  for (;;) {
    CTTE_ASSIGN_OR_RETURN(const std::string status, ReadAttr(dir + "/status"));
    if (status == "applied") return Status::Ok();
    Result<std::string> path = ReadAttr(dir + "/path");
    if (path.ok() && path->empty()) {
      return Status::IOError(dir + ": overlay " + o.dtbo + " not applied (status '" + status +
                             "'; the kernel refused it: see dmesg)");
    }
    CTTE_RETURN_IF_ERROR(wait(("overlay " + o.dtbo + " not applied (status '" + status + "')").c_str()));
  }
}

Status WritePrivateFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  ::unlink(tmp.c_str());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return ErrnoStatus(tmp, errno);
  Status s = Status::Ok();
  if (::fchmod(fd, 0600) != 0) s = ErrnoStatus(tmp, errno);
  for (size_t done = 0; s.ok() && done < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) s = ErrnoStatus(tmp, errno);
    else done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0 && s.ok()) s = ErrnoStatus(tmp, errno);
  if (s.ok() && ::rename(tmp.c_str(), path.c_str()) != 0) s = ErrnoStatus(path, errno);
  if (!s.ok()) ::unlink(tmp.c_str());
  return s;
}

}  // namespace ctte::lab::zynq
