// ArtifactStore (see artifacts.h): content-addressed files beside the database.
#include "db/artifacts.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <set>
#include <system_error>

#include "base/files.h"
#include "base/json.h"
#include "base/output.h"
#include "base/sha256.h"
#include "db/database.h"

namespace ctte::db {
namespace {

namespace fs = std::filesystem;

bool IsDigest(const std::string& s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

bool Exists(const std::string& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && !ec;
}

Status WriteInStore(const std::string& path, const std::vector<uint8_t>& bytes) {
  OutputOptions o;
  o.create_parents = true;
  return WriteOutputFile(path, bytes, o);
}

}  // namespace

std::string ArtifactStore::PathOf(const std::string& sha256) const {
  return root_ + "/sha256/" + sha256.substr(0, 2) + "/" + sha256;
}

std::string ArtifactStore::ManifestPathOf(const std::string& sha256) const {
  return PathOf(sha256) + ".manifest.json";
}

bool ArtifactStore::Has(const std::string& sha256) const {
  return IsDigest(sha256) && Exists(PathOf(sha256));
}

bool ArtifactStore::HasImage(const std::string& sha256) const {
  return Has(sha256) && Exists(ManifestPathOf(sha256));
}

Result<std::string> ArtifactStore::PutFile(const std::string& path, const std::string& sha256) {
  Result<std::vector<uint8_t>> bytes = ReadFileBytes(path);
  if (!bytes.ok()) return bytes.status();
  const std::string digest = Sha256Hex(std::span<const uint8_t>(*bytes));
  if (!sha256.empty() && digest != sha256) {
    return Status::InvalidArgument(path + " has SHA-256 " + digest + ", expected " + sha256 +
                                   ": not stored");
  }
  if (Has(digest)) return digest;
  Status st = WriteInStore(PathOf(digest), *bytes);
  if (!st.ok()) return Status::IOError("artifact store " + root_ + ": " + st.message());
  return digest;
}

Status ArtifactStore::PutImage(const std::string& so_path, const std::string& sha256,
                               const std::string& manifest_text) {
  Result<std::string> d = PutFile(so_path, sha256);
  if (!d.ok()) return d.status();
  if (HasImage(sha256)) return Status::Ok();
  Result<nlohmann::ordered_json> j = ParseJsonText(manifest_text, so_path + " manifest");
  if (!j.ok()) return j.status();
  if (!j->is_object()) return Status::InvalidArgument(so_path + " manifest: not an object");
  (*j)["image"] = sha256;  // the manifest's directory holds the bytes under their digest
  const std::string text = j->dump(2) + "\n";
  Status st = WriteInStore(ManifestPathOf(sha256), std::vector<uint8_t>(text.begin(), text.end()));
  if (!st.ok()) return Status::IOError("artifact store " + root_ + ": " + st.message());
  return Status::Ok();
}

Result<uint64_t> ArtifactStore::CopyFrom(const ArtifactStore& from,
                                         const std::vector<std::string>& digests) {
  uint64_t copied = 0;
  for (const std::string& d : digests) {
    if (!from.Has(d)) continue;
    if (!Has(d)) {
      Result<std::string> put = PutFile(from.PathOf(d), d);
      if (!put.ok()) return put.status();
      ++copied;
    }
    if (Exists(from.ManifestPathOf(d)) && !Exists(ManifestPathOf(d))) {
      Result<std::vector<uint8_t>> m = ReadFileBytes(from.ManifestPathOf(d));
      if (!m.ok()) return m.status();
      Status st = WriteInStore(ManifestPathOf(d), *m);
      if (!st.ok()) return Status::IOError("artifact store " + root_ + ": " + st.message());
      ++copied;
    }
  }
  return copied;
}

Result<std::vector<std::string>> ArtifactStore::Digests() const {
  std::vector<std::string> out;
  const fs::path base = fs::path(root_) / "sha256";
  std::error_code ec;
  if (!fs::exists(base, ec)) return out;
  for (fs::recursive_directory_iterator it(base, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file() && IsDigest(it->path().filename().string())) {
      out.push_back(it->path().filename().string());
    }
  }
  if (ec) return ErrnoStatus(base.string(), ec.value());
  std::sort(out.begin(), out.end());
  return out;
}

Result<GcResult> ArtifactStore::Gc(const std::vector<std::string>& referenced,
                                   bool dry_run) const {
  Result<std::vector<std::string>> all = Digests();
  if (!all.ok()) return all.status();
  const std::set<std::string> keep(referenced.begin(), referenced.end());
  GcResult r;
  for (const std::string& d : *all) {
    if (keep.count(d) != 0) {
      ++r.kept;
      continue;
    }
    std::error_code ec;
    r.bytes_removed += fs::file_size(PathOf(d), ec);
    r.removed_digests.push_back(d);
    ++r.removed;
    if (dry_run) continue;
    for (const std::string& p : {PathOf(d), ManifestPathOf(d)}) {
      fs::remove(p, ec);
      if (ec) return ErrnoStatus(p, ec.value());
    }
  }
  return r;
}

Result<uint64_t> CarryArtifacts(const std::string& output_db,
                                const std::vector<std::string>& input_dbs) {
  auto db = Database::OpenReadOnly(output_db);
  if (!db.ok()) return db.status();
  Result<std::vector<std::string>> referenced = (*db)->ReferencedDigests();
  if (!referenced.ok()) return referenced.status();
  ArtifactStore out(ArtifactStore::DefaultRoot(output_db));
  uint64_t copied = 0;
  for (const std::string& in : input_dbs) {
    Result<uint64_t> n = out.CopyFrom(ArtifactStore(ArtifactStore::DefaultRoot(in)), *referenced);
    if (!n.ok()) return n.status();
    copied += *n;
  }
  return copied;
}

}  // namespace ctte::db
