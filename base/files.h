// Small file helpers shared by every module: bounded whole-file reads, errno to Status, and
// (implemented on base/output.h) atomic writes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace ctte {

struct ReadLimits {
  /// Largest file read whole, in bytes (1 GiB); a larger file is refused without reading it.
  size_t max_bytes = size_t{1} << 30;
};

/// Reads a regular file whole. Refuses a FIFO, a device (/dev/zero), a directory or a socket
/// before reading a byte, and a file larger than limits.max_bytes. Symbolic links are followed.
/// Errors name the path: NotFound when it does not exist, IOError "permission denied" for
/// EACCES/EPERM, InvalidArgument for a path that is not a regular file.
Result<std::vector<uint8_t>> ReadFileBytes(const std::string& path, const ReadLimits& limits = {});
Result<std::string> ReadFileText(const std::string& path, const ReadLimits& limits = {});

/// Writes through WriteOutputFile (base/output.h) with default options: a reader never sees
/// half a file, and a symlink, FIFO, device or directory at PATH is refused, not replaced.
Status WriteFileAtomic(const std::string& path, const void* data, size_t size);
inline Status WriteFileAtomic(const std::string& path, const std::string& text) {
  return WriteFileAtomic(path, text.data(), text.size());
}
inline Status WriteFileAtomic(const std::string& path, const std::vector<uint8_t>& bytes) {
  return WriteFileAtomic(path, bytes.data(), bytes.size());
}

/// "PATH: reason" with the Status code that fits errno `err`: ENOENT -> NotFound;
/// EACCES, EPERM -> IOError "permission denied"; EROFS -> IOError "read-only file system";
/// ENOSPC, EDQUOT -> IOError "no space left on device"; ENOTDIR, EISDIR, ELOOP, ENAMETOOLONG
/// -> InvalidArgument; anything else -> IOError with strerror's text.
Status ErrnoStatus(const std::string& path, int err);

/// "a regular file", "a directory", "a symbolic link", "a FIFO", "a character device",
/// "a block device", "a socket" for a stat() st_mode.
const char* FileTypeName(unsigned st_mode);

}  // namespace ctte
