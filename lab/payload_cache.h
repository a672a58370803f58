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
// A byte budget bounds the folder (the agent's --cache-bytes): storing a payload first evicts
// the least recently used entries (stored or looked up longest ago) until it fits; a payload
// larger than the whole budget is refused (InvalidArgument). The order of use survives a
// restart: a lookup sets the entry's modification time, and Open() orders entries by it and
// evicts down to the budget at once.
//
// Threading: one thread at a time (the agent serves one session at a time).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"

namespace ctte::lab {

class PayloadCache {
 public:
  /// Opens (creating it when missing) the cache folder `dir`, holding at most `max_bytes` of
  /// payloads (entries over it are evicted at once, least recently used first).
  static Result<std::unique_ptr<PayloadCache>> Open(const std::string& dir,
                                                    uint64_t max_bytes = UINT64_MAX);

  /// Whether a payload is a valid SHA-256 name (64 lowercase hex digits).
  static bool ValidName(const std::string& sha256);

  /// The path of payload `sha256`, verified by hashing it now; NotFound when absent or when the
  /// entry was corrupted (then it is removed and *corrupted set, when non-null).
  Result<std::string> Lookup(const std::string& sha256, bool* corrupted = nullptr);
  /// The verified bytes of payload `sha256` (as Lookup, then read).
  Result<std::vector<uint8_t>> Read(const std::string& sha256, bool* corrupted = nullptr);
  /// Stores `bytes`, which must hash to `sha256` (else Corruption naming both: the transfer
  /// damaged them), after evicting least recently used entries until they fit the budget (the
  /// names evicted are appended to *evicted when non-null); returns the entry's path.
  /// InvalidArgument when the bytes alone exceed the budget.
  Result<std::string> Put(const std::string& sha256, const std::vector<uint8_t>& bytes,
                          std::vector<std::string>* evicted = nullptr);

  const std::string& dir() const { return dir_; }
  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }
  uint64_t corrupted() const { return corrupted_; }
  uint64_t evicted() const { return evicted_; }
  uint64_t bytes() const { return bytes_; }          ///< payload bytes held now
  uint64_t max_bytes() const { return max_bytes_; }  ///< the budget

 private:
  PayloadCache(std::string dir, uint64_t max_bytes) : dir_(std::move(dir)), max_bytes_(max_bytes) {}
  std::string PathOf(const std::string& sha256) const { return dir_ + "/" + sha256; }
  void Forget(const std::string& sha256);  ///< drops the entry from the books (not the file)
  /// Evicts least recently used entries other than `keep` until `incoming` more bytes fit.
  void MakeRoom(uint64_t incoming, const std::string& keep, std::vector<std::string>* evicted);
  void Touch(const std::string& sha256);
  struct Entry {
    uint64_t size = 0;
    uint64_t last_use = 0;  ///< a tick of use_clock_
  };
  std::string dir_;
  uint64_t max_bytes_;
  std::map<std::string, Entry> entries_;
  uint64_t bytes_ = 0, use_clock_ = 0;
  int64_t last_mtime_ns_ = 0;  ///< the latest modification time set or found
  uint64_t hits_ = 0, misses_ = 0, corrupted_ = 0, evicted_ = 0;
};

}  // namespace ctte::lab
