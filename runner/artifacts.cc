// StoreSpecArtifacts / StoreRunArtifacts (see artifacts.h).
#include "runner/artifacts.h"

#include <filesystem>
#include <set>
#include <system_error>
#include <vector>

#include "base/files.h"
#include "base/sha256.h"
#include "lab/image_manifest.h"
#include "runner/workload_xlen.h"

namespace ctte::runner {
namespace {

bool IsFile(const std::string& p) {
  std::error_code ec;
  return std::filesystem::is_regular_file(p, ec) && !ec;
}

}  // namespace

Status StoreImage(const std::string& manifest_path, db::ArtifactStore& store) {
  Result<lab::ImageManifest> m = lab::ImageManifest::Load(manifest_path);
  if (!m.ok()) return m.status();
  if (store.HasImage(m->sha256)) return Status::Ok();
  Result<std::string> text = ReadFileText(manifest_path);
  if (!text.ok()) return text.status();
  return store.PutImage(m->image_path, m->sha256, *text);
}

Status StoreSpecArtifacts(const CampaignSpec& spec, const PlanOptions& o,
                          db::ArtifactStore& store) {
  std::set<std::string> images;
  for (const WeightedValue& v : spec.images) images.insert(v.value);
  for (const ControlSpec& c : spec.controls) images.insert(c.image);
  std::set<uint32_t> widths;  // the XLENs of the spec's images: the builds its runs can use
  for (const std::string& name : images) {
    const std::string manifest = o.image_dir + "/" + name + ".manifest.json";
    if (!IsFile(manifest)) continue;
    if (Result<lab::ImageManifest> m = lab::ImageManifest::Load(manifest); m.ok()) {
      widths.insert(ImageXlen(*m));
    }
    Status st = StoreImage(manifest, store);
    // A manifest whose .so does not match it is the deploy's to report; only I/O is fatal here.
    if (!st.ok() && st.code() == Status::Code::kIOError) return st;
  }
  for (const WeightedValue& w : spec.axis("workload").values) {
    if (w.value == "random") continue;  // generated per run: kept by StoreRunArtifacts
    auto user = o.user_workloads.find(w.value);
    std::vector<std::string> paths;
    if (user != o.user_workloads.end()) {
      paths.push_back(user->second);
    } else {
      // A built-in has one build per width (runner/workload_xlen.h): keep the build of each
      // width the spec's images have (an unused width would only be gc's to remove).
      for (const uint32_t xlen : widths) {
        paths.push_back(BuiltinWorkloadPath(o.workload_dir, w.value, xlen));
      }
    }
    for (const std::string& path : paths) {
      if (!IsFile(path)) continue;
      Result<std::string> put = store.PutFile(path);
      if (!put.ok()) return put.status();
    }
  }
  return Status::Ok();
}

Result<uint64_t> StoreRunArtifacts(const db::Database& db, int64_t campaign_id,
                                   const PlanOptions& o, db::ArtifactStore& store) {
  Result<std::vector<db::RunRow>> rows = db.RunsOfCampaign(campaign_id);
  if (!rows.ok()) return rows.status();
  uint64_t added = 0;
  for (const db::RunRow& row : *rows) {
    const db::RunRecord& r = row.run;
    if (!r.image_sha256.empty() && !store.HasImage(r.image_sha256)) {
      const std::string manifest = o.image_dir + "/" + r.image_name + ".manifest.json";
      Result<lab::ImageManifest> m = lab::ImageManifest::Load(manifest);
      if (m.ok() && m->sha256 == r.image_sha256 && StoreImage(manifest, store).ok()) ++added;
    }
    Result<std::optional<db::RunPins>> pins = db.PinsOfRun(row.id);
    if (!pins.ok()) return pins.status();
    if (!*pins || (*pins)->workload_sha256.empty() || store.Has((*pins)->workload_sha256)) {
      continue;
    }
    if (IsFile((*pins)->workload_path) &&
        store.PutFile((*pins)->workload_path, (*pins)->workload_sha256).ok()) {
      ++added;
    }
  }
  return added;
}

}  // namespace ctte::runner
