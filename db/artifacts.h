// The artifact store (docs/db-schema.md, "Artifact store"): every encoder image (.so and its
// manifest) and every workload ELF a campaign used, kept once by SHA-256 beside the database,
// so a run stays replayable after the build tree is cleaned or rebuilt with new build ids.
//
// Layout under the root (by default "<db>.artifacts"):
//   sha256/ab/abcdef...                 the bytes (an ELF or an image .so), named by their digest
//   sha256/ab/abcdef....manifest.json   for an image: its manifest, "image" pointing at the bytes
// Files are written atomically (temporary name, rename) and checked against their digest, so a
// concurrent writer or a crash never leaves a file whose name lies. Nothing here knows SQLite:
// what is referenced comes from Database::ReferencedDigests().
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace ctte::db {

struct GcResult {
  uint64_t kept = 0, removed = 0, bytes_removed = 0;
  std::vector<std::string> removed_digests;  ///< sorted
};

class ArtifactStore {
 public:
  explicit ArtifactStore(std::string root) : root_(std::move(root)) {}
  /// "<db_path>.artifacts": the default store of a database file.
  static std::string DefaultRoot(const std::string& db_path) { return db_path + ".artifacts"; }

  const std::string& root() const { return root_; }
  /// Where the bytes with this digest are (or would be) kept.
  std::string PathOf(const std::string& sha256) const;
  /// Where the manifest of the image with this digest is (or would be) kept.
  std::string ManifestPathOf(const std::string& sha256) const;
  bool Has(const std::string& sha256) const;
  bool HasImage(const std::string& sha256) const;

  /// Copies `path` into the store unless it is there already. The file's digest must equal
  /// `sha256` when given (InvalidArgument naming both otherwise). Returns the digest.
  Result<std::string> PutFile(const std::string& path, const std::string& sha256 = "");
  /// Keeps an image: its bytes (PutFile(so_path, sha256)) and `manifest_text` with its "image"
  /// key rewritten to the stored bytes' name.
  Status PutImage(const std::string& so_path, const std::string& sha256,
                  const std::string& manifest_text);
  /// Copies the artifacts named by `digests` that `from` has and this store lacks (db merge).
  /// Returns how many files were copied.
  Result<uint64_t> CopyFrom(const ArtifactStore& from, const std::vector<std::string>& digests);

  /// Every digest the store holds (sorted).
  Result<std::vector<std::string>> Digests() const;
  /// Removes every artifact whose digest is not in `referenced` (with dry_run, only reports).
  Result<GcResult> Gc(const std::vector<std::string>& referenced, bool dry_run) const;

 private:
  std::string root_;
};

/// After `db merge`: copies into the output database's default store the artifacts that its
/// runs refer to and the inputs' default stores hold. Returns how many files were copied.
Result<uint64_t> CarryArtifacts(const std::string& output_db,
                                const std::vector<std::string>& input_dbs);

}  // namespace ctte::db
