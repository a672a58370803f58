#include "base/files.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace ctte {
namespace {
using FilePtr = std::unique_ptr<FILE, int (*)(FILE*)>;
std::string Errno() { return std::strerror(errno); }
}  // namespace

Result<std::vector<uint8_t>> ReadFileBytes(const std::string& path) {
  FilePtr f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) return Status::NotFound(path + ": " + Errno());
  std::vector<uint8_t> out;
  uint8_t buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f.get())) > 0) out.insert(out.end(), buf, buf + n);
  if (std::ferror(f.get())) return Status::IOError(path + ": read error");
  return out;
}

Result<std::string> ReadFileText(const std::string& path) {
  auto bytes = ReadFileBytes(path);
  if (!bytes.ok()) return bytes.status();
  return std::string(bytes->begin(), bytes->end());
}

Status WriteFileAtomic(const std::string& path, const void* data, size_t size) {
  const std::string tmp = path + ".tmp";
  {
    FilePtr f(std::fopen(tmp.c_str(), "wb"), &std::fclose);
    if (!f) return Status::IOError(tmp + ": " + Errno());
    if (size && std::fwrite(data, 1, size, f.get()) != size) {
      return Status::IOError(tmp + ": write failed: " + Errno());
    }
    if (std::fflush(f.get()) != 0) return Status::IOError(tmp + ": flush failed: " + Errno());
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    return Status::IOError("rename " + tmp + " -> " + path + ": " + Errno());
  }
  return Status::Ok();
}

}  // namespace ctte
