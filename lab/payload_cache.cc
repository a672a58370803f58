// PayloadCache (see payload_cache.h).
#include "lab/payload_cache.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <filesystem>

#include "base/files.h"
#include "base/output.h"
#include "base/sha256.h"
#include "base/text.h"

namespace ctte::lab {

Result<std::unique_ptr<PayloadCache>> PayloadCache::Open(const std::string& dir,
                                                          uint64_t max_bytes) {
  if (dir.empty()) return Status::InvalidArgument("payload cache: no folder given");
  if (max_bytes == 0) return Status::InvalidArgument("payload cache " + dir + ": a budget of 0 bytes");
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::IOError("payload cache " + dir + ": " + ec.message());
  CTTE_RETURN_IF_ERROR(CheckWritableDir(dir));
  std::unique_ptr<PayloadCache> c(new PayloadCache(dir, max_bytes));
  // The entries a previous agent left, in their order of use (modification time).
  std::vector<std::pair<std::pair<int64_t, int64_t>, std::string>> found;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    struct stat st{};
    if (!ValidName(name) || ::lstat(e.path().c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    found.push_back({{st.st_mtim.tv_sec, st.st_mtim.tv_nsec}, name});
    c->last_mtime_ns_ = std::max<int64_t>(
        c->last_mtime_ns_, static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec);
    c->entries_[name].size = static_cast<uint64_t>(st.st_size);
    c->bytes_ += static_cast<uint64_t>(st.st_size);
  }
  if (ec) return Status::IOError("payload cache " + dir + ": " + ec.message());
  std::sort(found.begin(), found.end());
  for (const auto& [when, name] : found) c->entries_[name].last_use = ++c->use_clock_;
  c->MakeRoom(0, "", nullptr);
  return c;
}

void PayloadCache::Forget(const std::string& sha256) {
  auto it = entries_.find(sha256);
  if (it == entries_.end()) return;
  bytes_ -= it->second.size;
  entries_.erase(it);
}

void PayloadCache::Touch(const std::string& sha256) {
  auto it = entries_.find(sha256);
  if (it != entries_.end()) it->second.last_use = ++use_clock_;
  // The order of use survives a restart (Open sorts by modification time): each use gets a
  // time later than every earlier one, even within one tick of the file system's coarse clock.
  // A failure costs only that order.
  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  const int64_t ns = std::max<int64_t>(static_cast<int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec,
                                       last_mtime_ns_ + 1);
  last_mtime_ns_ = ns;
  const timespec times[2] = {{0, UTIME_OMIT}, {ns / 1'000'000'000, ns % 1'000'000'000}};
  (void)::utimensat(AT_FDCWD, PathOf(sha256).c_str(), times, 0);
}

void PayloadCache::MakeRoom(uint64_t incoming, const std::string& keep,
                            std::vector<std::string>* evicted) {
  while (bytes_ + incoming > max_bytes_) {
    auto victim = entries_.end();
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (it->first == keep) continue;
      if (victim == entries_.end() || it->second.last_use < victim->second.last_use) victim = it;
    }
    if (victim == entries_.end()) return;
    const std::string name = victim->first;
    std::error_code ec;
    std::filesystem::remove(PathOf(name), ec);
    Forget(name);
    ++evicted_;
    if (evicted != nullptr) evicted->push_back(name);
  }
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
    return Status::InvalidArgument("payload name " + QuoteForMessage(sha256) +
                                   " is not a SHA-256 (64 hex digits)");
  }
  const std::string path = PathOf(sha256);
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) {
    ++misses_;
    Forget(sha256);
    return Status::NotFound("payload " + sha256 + " is not in the cache " + dir_);
  }
  Result<std::string> got = Sha256File(path);
  if (!got.ok() || *got != sha256) {
    // Corrupted: drop it, so the client sends the payload again.
    ++corrupted_;
    ++misses_;
    std::error_code ec;
    std::filesystem::remove(path, ec);
    Forget(sha256);
    if (corrupted != nullptr) *corrupted = true;
    return Status::NotFound("payload " + sha256 + " in the cache " + dir_ + " was corrupted (" +
                            (got.ok() ? "its bytes hash to " + *got : got.status().ToString()) +
                            "); removed");
  }
  ++hits_;
  Touch(sha256);
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

Result<std::string> PayloadCache::Put(const std::string& sha256, const std::vector<uint8_t>& bytes,
                                      std::vector<std::string>* evicted) {
  if (!ValidName(sha256)) {
    return Status::InvalidArgument("payload name " + QuoteForMessage(sha256) +
                                   " is not a SHA-256 (64 hex digits)");
  }
  const std::string got = Sha256Hex(bytes);
  if (got != sha256) {
    return Status::Corruption("payload of " + std::to_string(bytes.size()) + " bytes hashes to " +
                              got + ", announced as " + sha256 + " (damaged in transfer)");
  }
  if (bytes.size() > max_bytes_) {
    return Status::InvalidArgument("payload of " + std::to_string(bytes.size()) +
                                     " bytes exceeds the cache budget of " +
                                     std::to_string(max_bytes_) + " bytes (--cache-bytes)");
  }
  Forget(sha256);  // stored again: its old size leaves the books
  MakeRoom(bytes.size(), sha256, evicted);
  const std::string path = PathOf(sha256);
  CTTE_RETURN_IF_ERROR(WriteOutputFile(path, bytes));
  entries_[sha256] = Entry{bytes.size(), 0};
  bytes_ += bytes.size();
  Touch(sha256);
  return path;
}

}  // namespace ctte::lab
