// PayloadCache (see payload_cache.h).
#include "lab/payload_cache.h"

#include <sys/stat.h>

#include <cerrno>
#include <filesystem>

#include "base/files.h"
#include "base/output.h"
#include "base/sha256.h"

namespace ctte::lab {

Result<std::unique_ptr<PayloadCache>> PayloadCache::Open(const std::string& dir) {
  if (dir.empty()) return Status::InvalidArgument("payload cache: no folder given");
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::IOError("payload cache " + dir + ": " + ec.message());
  CTTE_RETURN_IF_ERROR(CheckWritableDir(dir));
  return std::unique_ptr<PayloadCache>(new PayloadCache(dir));
}

bool PayloadCache::ValidName(const std::string& sha256) {
  if (sha256.size() != 64) return false;
  for (char c : sha256) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

Result<std::string> PayloadCache::Lookup(const std::string& sha256, bool* corrupted) {
  if (corrupted != nullptr) *corrupted = false;
  if (!ValidName(sha256)) {
    return Status::InvalidArgument("payload name '" + sha256 + "' is not a SHA-256 (64 hex digits)");
  }
  const std::string path = PathOf(sha256);
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) {
    ++misses_;
    return Status::NotFound("payload " + sha256 + " is not in the cache " + dir_);
  }
  Result<std::string> got = Sha256File(path);
  if (!got.ok() || *got != sha256) {
    // Corrupted: drop it, so the client sends the payload again.
    ++corrupted_;
    ++misses_;
    std::error_code ec;
    std::filesystem::remove(path, ec);
    if (corrupted != nullptr) *corrupted = true;
    return Status::NotFound("payload " + sha256 + " in the cache " + dir_ + " was corrupted (" +
                            (got.ok() ? "its bytes hash to " + *got : got.status().ToString()) +
                            "); removed");
  }
  ++hits_;
  return path;
}

Result<std::vector<uint8_t>> PayloadCache::Read(const std::string& sha256, bool* corrupted) {
  CTTE_ASSIGN_OR_RETURN(const std::string path, Lookup(sha256, corrupted));
  CTTE_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, ReadFileBytes(path));
  if (Sha256Hex(bytes) != sha256) {  // changed between the check and the read
    if (corrupted != nullptr) *corrupted = true;
    return Status::NotFound("payload " + sha256 + " changed while it was read");
  }
  return bytes;
}

Result<std::string> PayloadCache::Put(const std::string& sha256, const std::vector<uint8_t>& bytes) {
  if (!ValidName(sha256)) {
    return Status::InvalidArgument("payload name '" + sha256 + "' is not a SHA-256 (64 hex digits)");
  }
  const std::string got = Sha256Hex(bytes);
  if (got != sha256) {
    return Status::Corruption("payload of " + std::to_string(bytes.size()) + " bytes hashes to " +
                              got + ", announced as " + sha256 + " (damaged in transfer)");
  }
  const std::string path = PathOf(sha256);
  CTTE_RETURN_IF_ERROR(WriteOutputFile(path, bytes));
  return path;
}

}  // namespace ctte::lab
