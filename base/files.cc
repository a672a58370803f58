#include "base/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>


namespace ctte {
namespace {

// Closes a file descriptor on every path out.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

const char* FileTypeName(unsigned st_mode) {
  const mode_t m = static_cast<mode_t>(st_mode);
  if (S_ISREG(m)) return "a regular file";
  if (S_ISDIR(m)) return "a directory";
  if (S_ISLNK(m)) return "a symbolic link";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}

Status ErrnoStatus(const std::string& path, int err) {
  switch (err) {
    case ENOENT:
      return Status::NotFound(path + ": no such file or folder");
    case EACCES:
    case EPERM:
      return Status::IOError(path + ": permission denied");
    case EROFS:
      return Status::IOError(path + ": read-only file system");
    case ENOSPC:
    case EDQUOT:
      return Status::IOError(path + ": no space left on device");
    case ENOTDIR:
      return Status::InvalidArgument(path + ": a component of the path is not a folder");
    case EISDIR:
      return Status::InvalidArgument(path + ": is a directory");
    case ELOOP:
      return Status::InvalidArgument(path + ": too many levels of symbolic links");
    case ENAMETOOLONG:
      return Status::InvalidArgument(path + ": file name too long");
    default:
      return Status::IOError(path + ": " + std::strerror(err));
  }
}

Result<std::vector<uint8_t>> ReadFileBytes(const std::string& path, const ReadLimits& limits) {
  if (path.empty()) return Status::InvalidArgument("empty file name");
  struct stat st {};
  // stat() first: opening a device can have effects of its own, and opening a FIFO blocks.
  if (::stat(path.c_str(), &st) != 0) return ErrnoStatus(path, errno);
  const auto not_regular = [&](const struct stat& s) {
    return Status::InvalidArgument(path + ": is " + FileTypeName(s.st_mode) +
                                   ", not a regular file");
  };
  if (!S_ISREG(st.st_mode)) return not_regular(st);
  Fd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (fd.get() < 0) return ErrnoStatus(path, errno);
  if (::fstat(fd.get(), &st) != 0) return ErrnoStatus(path, errno);
  if (!S_ISREG(st.st_mode)) return not_regular(st);  // replaced between stat() and open()
  const auto too_large = [&](uint64_t size) {
    return Status::InvalidArgument(path + ": " + (size ? std::to_string(size) + " bytes, " : "") +
                                   "larger than the " + std::to_string(limits.max_bytes) +
                                   "-byte limit");
  };
  if (static_cast<uint64_t>(st.st_size) > limits.max_bytes) {
    return too_large(static_cast<uint64_t>(st.st_size));
  }
  std::vector<uint8_t> out;
  out.reserve(static_cast<size_t>(st.st_size));
  uint8_t buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(path, errno);
    }
    if (n == 0) break;
    if (out.size() + static_cast<size_t>(n) > limits.max_bytes) return too_large(0);  // it grew
    out.insert(out.end(), buf, buf + n);
  }
  return out;
}

Result<std::string> ReadFileText(const std::string& path, const ReadLimits& limits) {
  auto bytes = ReadFileBytes(path, limits);
  if (!bytes.ok()) return bytes.status();
  return std::string(bytes->begin(), bytes->end());
}

}  // namespace ctte
