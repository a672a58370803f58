// Output files (see output.h): check the target and its folder, write a temporary file beside
// it, rename it over the target; a guard removes the temporary file on every failure path.
#include "base/output.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include "base/files.h"

namespace ctte {
namespace {

std::atomic<uint64_t> g_temp_counter{0};

Status WithCode(Status::Code code, std::string msg) {
  switch (code) {
    case Status::Code::kOk: return Status::Ok();
    case Status::Code::kNotFound: return Status::NotFound(std::move(msg));
    case Status::Code::kCorruption: return Status::Corruption(std::move(msg));
    case Status::Code::kIOError: return Status::IOError(std::move(msg));
    case Status::Code::kInvalidArgument: return Status::InvalidArgument(std::move(msg));
    case Status::Code::kTimeout: return Status::Timeout(std::move(msg));
    case Status::Code::kUnavailable: return Status::Unavailable(std::move(msg));
    case Status::Code::kInternal: return Status::Internal(std::move(msg));
  }
  return Status::Internal(std::move(msg));
}

// "PATH: what: reason" with errno's code (ErrnoStatus gives "X: reason").
Status Failed(const std::string& path, const std::string& what, int err) {
  const Status s = ErrnoStatus("", err);
  // s.message() is ": reason".
  return WithCode(s.code(), path + ": " + what + s.message());
}

struct Target {
  std::string folder;  // "." for a bare file name
  std::string name;    // the last component
};

Result<Target> SplitPath(const std::string& path) {
  if (path.empty()) return Status::InvalidArgument("output file name is empty");
  if (path.back() == '/') {
    return Status::InvalidArgument(path + ": names a folder (ends in '/'), not a file");
  }
  const size_t slash = path.rfind('/');
  Target t;
  if (slash == std::string::npos) {
    t.folder = ".";
    t.name = path;
  } else {
    t.folder = slash == 0 ? "/" : path.substr(0, slash);
    t.name = path.substr(slash + 1);
  }
  if (t.name == "." || t.name == "..") {
    return Status::InvalidArgument(path + ": names a folder, not a file");
  }
  return t;
}

std::string LinkTarget(const std::string& path) {
  char buf[4096];
  const ssize_t n = ::readlink(path.c_str(), buf, sizeof buf - 1);
  if (n <= 0) return "";
  return " (to " + std::string(buf, static_cast<size_t>(n)) + ")";
}

// What is at `path` now: nothing (exists = false), a regular file (its stat), or an error that
// refuses anything else.
struct Existing {
  bool exists = false;
  struct stat st {};
};

Result<Existing> Inspect(const std::string& path, const OutputOptions& options) {
  Existing e;
  if (::lstat(path.c_str(), &e.st) != 0) {
    if (errno == ENOENT) return e;
    return Failed(path, "cannot inspect the output path", errno);
  }
  e.exists = true;
  if (!S_ISREG(e.st.st_mode)) {
    std::string what = FileTypeName(e.st.st_mode);
    if (S_ISLNK(e.st.st_mode)) what += LinkTarget(path);
    return Status::InvalidArgument(path + ": is " + what +
                                   "; refusing to replace it (only a regular file is replaced; "
                                   "give a regular file's path)");
  }
  if (!options.replace_existing) {
    return Status::InvalidArgument(path + ": exists; refusing to replace it");
  }
  return e;
}

Status CheckFolder(const std::string& path, const std::string& folder,
                   const OutputOptions& options, bool create) {
  struct stat st {};
  if (::stat(folder.c_str(), &st) != 0) {
    const int err = errno;
    if (err == ENOENT && options.create_parents) {
      if (!create) return Status::Ok();  // CheckOutputPath: it would be created
      std::error_code ec;
      std::filesystem::create_directories(folder, ec);
      if (ec) return Failed(path, "cannot create parent folder " + folder, ec.value());
      return Status::Ok();
    }
    if (err == ENOENT) {
      return Status::NotFound(path + ": parent folder " + folder + " does not exist");
    }
    return Failed(path, "parent folder " + folder, err);
  }
  if (!S_ISDIR(st.st_mode)) {
    return Status::InvalidArgument(path + ": parent " + folder + " is " +
                                   FileTypeName(st.st_mode) + ", not a folder");
  }
  return Status::Ok();
}

// A temporary file beside the target, removed unless Commit()ted.
class TempFile {
 public:
  TempFile() = default;
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile() {
    Close();
    if (!path_.empty()) ::unlink(path_.c_str());
  }

  Status Create(const Target& t, const std::string& target_path) {
    // Keep the name short enough for NAME_MAX however long the target's name is.
    std::string stem(1, '.');
    stem.append(t.name, 0, 100);
    stem.append(".tmp-");
    stem.append(std::to_string(::getpid()));
    for (int attempt = 0; attempt < 100; ++attempt) {
      const std::string candidate =
          (t.folder == "/" ? "" : t.folder) + "/" + stem + "-" + std::to_string(g_temp_counter++);
      fd_ = ::open(candidate.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
      if (fd_ >= 0) {
        path_ = candidate;
        return Status::Ok();
      }
      if (errno != EEXIST) {
        return Failed(target_path, "cannot create a file in folder " + t.folder, errno);
      }
    }
    return Status::IOError(target_path + ": cannot create a temporary file in folder " +
                           t.folder + ": 100 names taken");
  }

  int fd() const { return fd_; }
  const std::string& path() const { return path_; }

  int Close() {
    if (fd_ < 0) return 0;
    const int rc = ::close(fd_);
    fd_ = -1;
    return rc;
  }
  void Commit() { path_.clear(); }

 private:
  int fd_ = -1;
  std::string path_;
};

// Writes all `size` bytes: resumes short writes and EINTR, waits in poll(2) on EAGAIN (a
// non-blocking pipe or terminal). Returns 0 or the errno that stopped it.
int WriteFully(int fd, const void* data, size_t size) {
  const auto* p = static_cast<const uint8_t*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, p, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        struct pollfd pfd {fd, POLLOUT, 0};
        if (::poll(&pfd, 1, -1) < 0 && errno != EINTR) return errno;
        continue;
      }
      return errno;
    }
    p += n;
    size -= static_cast<size_t>(n);
  }
  return 0;
}

Status WriteAll(int fd, const void* data, size_t size, const std::string& path) {
  const int err = WriteFully(fd, data, size);
  if (err != 0) return Failed(path, "write failed", err);
  return Status::Ok();
}

// rename(2) over the target. A target that did not exist is created with RENAME_NOREPLACE,
// so something that appeared since Inspect() is never replaced.
Status RenameOver(const std::string& tmp, const std::string& path, bool existed,
                  const OutputOptions& options) {
  if (!existed) {
    if (::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE) == 0) {
      return Status::Ok();
    }
    if (errno == EEXIST) {
      // Something appeared: replace it only if the rule allows (a regular file).
      Result<Existing> now = Inspect(path, options);
      if (!now.ok()) return now.status();
    } else if (errno != EINVAL && errno != ENOSYS) {
      return Failed(path, "rename failed", errno);
    }
  } else {
    // Re-check just before the rename: the target may have been replaced while we wrote.
    Result<Existing> now = Inspect(path, options);
    if (!now.ok()) return now.status();
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) return Failed(path, "rename failed", errno);
  return Status::Ok();
}

void SyncFolder(const std::string& folder) {
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

Status CheckOutputPath(const std::string& path, const OutputOptions& options) {
  Result<Target> t = SplitPath(path);
  if (!t.ok()) return t.status();
  CTTE_RETURN_IF_ERROR(CheckFolder(path, t->folder, options, /*create=*/false));
  Result<Existing> e = Inspect(path, options);
  if (!e.ok()) return e.status();
  struct stat st {};
  if (::stat(t->folder.c_str(), &st) == 0) {  // a folder that would be created needs no probe
    const Status w = CheckWritableDir(t->folder);
    if (!w.ok()) return WithCode(w.code(), path + ": " + w.message());
  }
  return Status::Ok();
}

Status WriteOutputFile(const std::string& path, const void* data, size_t size,
                       const OutputOptions& options) {
  Result<Target> t = SplitPath(path);
  if (!t.ok()) return t.status();
  CTTE_RETURN_IF_ERROR(CheckFolder(path, t->folder, options, /*create=*/true));
  Result<Existing> existing = Inspect(path, options);
  if (!existing.ok()) return existing.status();

  TempFile tmp;
  CTTE_RETURN_IF_ERROR(tmp.Create(*t, path));
  if (existing->exists && ::fchmod(tmp.fd(), existing->st.st_mode & 07777) != 0) {
    return Failed(path, "cannot keep the existing file's mode", errno);
  }
  CTTE_RETURN_IF_ERROR(WriteAll(tmp.fd(), data, size, path));
  if (options.sync && ::fsync(tmp.fd()) != 0) return Failed(path, "fsync failed", errno);
  if (tmp.Close() != 0) return Failed(path, "write failed", errno);  // NFS reports ENOSPC here
  CTTE_RETURN_IF_ERROR(RenameOver(tmp.path(), path, existing->exists, options));
  tmp.Commit();
  if (options.sync) SyncFolder(t->folder);
  return Status::Ok();
}

Status CheckWritableDir(const std::string& dir) {
  if (dir.empty()) return Status::InvalidArgument("folder name is empty");
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    if (errno == ENOENT) return Status::NotFound("folder " + dir + " does not exist");
    return Failed(dir, "cannot inspect the folder", errno);
  }
  if (!S_ISDIR(st.st_mode)) {
    return Status::InvalidArgument(dir + ": is " + std::string(FileTypeName(st.st_mode)) +
                                   ", not a folder");
  }
  Target probe_target{dir, ".ctte-write-probe"};
  TempFile probe;
  const Status s = probe.Create(probe_target, dir);
  if (!s.ok()) {
    // "DIR: cannot create a file in folder DIR: permission denied" -> drop the repetition.
    std::string msg = s.message();
    const std::string repeated = dir + ": cannot create a file in folder " + dir;
    if (msg.compare(0, repeated.size(), repeated) == 0) {
      msg = dir + ": cannot create files in this folder" + msg.substr(repeated.size());
    }
    return WithCode(s.code(), msg);
  }
  return Status::Ok();  // ~TempFile removes the probe
}

// --- OutputFileWriter ---------------------------------------------------------------------------

struct OutputFileWriter::State {
  std::string path;
  OutputOptions options;
  Target target;
  bool existed = false;
  TempFile tmp;
  Status error;
  bool to_stdout = false;      // fd 1: no temporary file, no rename
  bool reader_closed = false;  // fd 1 gave EPIPE
  int fd() const { return to_stdout ? STDOUT_FILENO : tmp.fd(); }
};

OutputFileWriter::OutputFileWriter(std::unique_ptr<State> state)
    : state_(std::move(state)), buf_(new char[kChunk]) {}

OutputFileWriter::~OutputFileWriter() = default;  // ~TempFile removes an uncommitted file

Result<std::unique_ptr<OutputFileWriter>> OutputFileWriter::OpenStdout() {
  struct stat st {};
  if (::fstat(STDOUT_FILENO, &st) != 0) {
    if (errno == EBADF) return Status::InvalidArgument("standard output is closed");
    return Failed("standard output", "cannot inspect it", errno);
  }
  // A closed pipe must give EPIPE, not kill the process (the header: a quiet stop).
  ::signal(SIGPIPE, SIG_IGN);
  auto state = std::make_unique<State>();
  state->path = "standard output";
  state->to_stdout = true;
  return std::unique_ptr<OutputFileWriter>(new OutputFileWriter(std::move(state)));
}

bool OutputFileWriter::reader_closed() const { return state_->reader_closed; }

Result<std::unique_ptr<OutputFileWriter>> OutputFileWriter::Open(const std::string& path,
                                                                 const OutputOptions& options) {
  if (IsStdout(path)) return OpenStdout();
  Result<Target> t = SplitPath(path);
  if (!t.ok()) return t.status();
  CTTE_RETURN_IF_ERROR(CheckFolder(path, t->folder, options, /*create=*/true));
  Result<Existing> existing = Inspect(path, options);
  if (!existing.ok()) return existing.status();
  auto st = std::make_unique<State>();
  st->path = path;
  st->options = options;
  st->target = *t;
  st->existed = existing->exists;
  CTTE_RETURN_IF_ERROR(st->tmp.Create(*t, path));
  if (existing->exists && ::fchmod(st->tmp.fd(), existing->st.st_mode & 07777) != 0) {
    return Failed(path, "cannot keep the existing file's mode", errno);
  }
  return std::unique_ptr<OutputFileWriter>(new OutputFileWriter(std::move(st)));
}

// Writes straight to the target (the temporary file or fd 1) unless an error or a closed
// reader already stopped it.
void OutputFileWriter::WriteOut(const void* data, size_t size) {
  State& s = *state_;
  if (size == 0 || !s.error.ok() || s.reader_closed) return;
  const int err = WriteFully(s.fd(), data, size);
  if (err == EPIPE && s.to_stdout) {
    s.reader_closed = true;
  } else if (err != 0) {
    s.error = Failed(s.path, "write failed", err);
  }
}

void OutputFileWriter::Flush() {
  WriteOut(buf_.get(), pos_);
  pos_ = 0;
}

void OutputFileWriter::Append(const void* data, size_t size) {
  if (pos_ + size > kChunk) {
    Flush();
    if (size > kChunk) {
      WriteOut(data, size);
      return;
    }
  }
  std::memcpy(buf_.get() + pos_, data, size);
  pos_ += size;
}

Status OutputFileWriter::Commit() {
  Flush();
  State& s = *state_;
  CTTE_RETURN_IF_ERROR(s.error);
  if (s.to_stdout) return Status::Ok();  // fd 1 stays open: the process's, not ours
  if (s.options.sync && ::fsync(s.tmp.fd()) != 0) return Failed(s.path, "fsync failed", errno);
  if (s.tmp.Close() != 0) return Failed(s.path, "write failed", errno);
  CTTE_RETURN_IF_ERROR(RenameOver(s.tmp.path(), s.path, s.existed, s.options));
  s.tmp.Commit();
  if (s.options.sync) SyncFolder(s.target.folder);
  return Status::Ok();
}

// Declared in base/files.h; defined here, so that files.cc does not include output.h (the one
// include cycle of base/ was files.cc <-> output.cc).
Status WriteFileAtomic(const std::string& path, const void* data, size_t size) {
  return WriteOutputFile(path, data, size, OutputOptions{});
}

}  // namespace ctte
