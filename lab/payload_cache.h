// PayloadCache: the board agent's content-addressed store of payloads (encoder images and
// workload ELFs), one file per payload named by its SHA-256 in a cache folder
// (docs/board-protocol.md, "Payloads and the cache"). A client first asks whether the agent has
// a payload ("have" by SHA-256) and sends the bytes only when it has not, so a second run with
// the same image or workload transfers only the hash.
//
// Every lookup re-hashes the stored file: an entry whose bytes no longer hash to its name (a
// corrupted disk, a hand-edited file) is removed and reported as absent, so the client sends
// it again. Files are written through base/output.h (temporary file + rename), so a crash never
// leaves half an entry under a valid name.
//
// Threading: one thread at a time (the agent serves one session at a time).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"

namespace ctte::lab {

class PayloadCache {
 public:
  /// Opens (creating it when missing) the cache folder `dir`.
  static Result<std::unique_ptr<PayloadCache>> Open(const std::string& dir);

  /// Whether a payload is a valid SHA-256 name (64 lowercase hex digits).
  static bool ValidName(const std::string& sha256);

  /// The path of payload `sha256`, verified by hashing it now; NotFound when absent or when the
  /// entry was corrupted (then it is removed and *corrupted set, when non-null).
  Result<std::string> Lookup(const std::string& sha256, bool* corrupted = nullptr);
  /// The verified bytes of payload `sha256` (as Lookup, then read).
  Result<std::vector<uint8_t>> Read(const std::string& sha256, bool* corrupted = nullptr);
  /// Stores `bytes`, which must hash to `sha256` (else Corruption naming both: the transfer
  /// damaged them); returns the entry's path.
  Result<std::string> Put(const std::string& sha256, const std::vector<uint8_t>& bytes);

  const std::string& dir() const { return dir_; }
  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }
  uint64_t corrupted() const { return corrupted_; }

 private:
  explicit PayloadCache(std::string dir) : dir_(std::move(dir)) {}
  std::string PathOf(const std::string& sha256) const { return dir_ + "/" + sha256; }
  std::string dir_;
  uint64_t hits_ = 0, misses_ = 0, corrupted_ = 0;
};

}  // namespace ctte::lab
