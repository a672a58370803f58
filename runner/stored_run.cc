// LoadStoredRun (see stored_run.h).
#include "runner/stored_run.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <system_error>

#include "db/artifacts.h"
#include "db/triage_store.h"
#include "lab/image_manifest.h"
#include "oracle/program_gen.h"
#include "runner/campaign_spec.h"

namespace ctte::runner {
namespace {

// A folder for a regenerated program, removed when the last holder lets go.
Result<std::shared_ptr<const std::string>> ScratchFolder(int64_t run_id) {
  std::error_code ec;
  const auto p = std::filesystem::temp_directory_path(ec) /
                 ("ctte-stored-" + std::to_string(::getpid()) + "-" + std::to_string(run_id));
  std::filesystem::create_directories(p, ec);
  if (ec) return Status::IOError(p.string() + ": " + ec.message());
  return std::shared_ptr<const std::string>(new std::string(p.string()), [](const std::string* s) {
    std::error_code e;
    std::filesystem::remove_all(*s, e);
    delete s;
  });
}

}  // namespace

Result<StoredRun> LoadStoredRun(db::Database& db, int64_t run_id, const StoredRunOptions& o) {
  StoredRun r;
  auto row = db.RunById(run_id);
  if (!row.ok()) return Status::NotFound(row.status().message() + " in " + o.db_path);
  r.row = *row;
  const db::RunRecord& stored = r.row.run;
  Result<RunConfig> config = RunConfigFromJson(stored.config_json);
  if (!config.ok()) {
    return Status::InvalidArgument("run " + std::to_string(run_id) +
                                   ": config_json: " + config.status().message());
  }
  r.config = *config;
  const std::optional<db::ArtifactStore> store =
      o.artifacts_dir == "none"
          ? std::nullopt
          : std::optional<db::ArtifactStore>(o.artifacts_dir.empty()
                                                 ? db::ArtifactStore::DefaultRoot(o.db_path)
                                                 : o.artifacts_dir);
  const std::string store_name = store ? " " + store->root() : std::string();
  ExecuteOptions exec = o.execute;
  // The capture ring the run's campaign asked for: not in config_json.
  {
    auto spec = db::TriageStore::CampaignSpec(db, stored.campaign_id);
    if (!spec.ok()) return spec.status();
    Result<uint64_t> ring = CaptureRingOfSpecText(spec->first);
    if (!ring.ok()) {
      return Status::InvalidArgument("run " + std::to_string(run_id) +
                                     ": its campaign's spec_json: " + ring.status().message());
    }
    exec.ring_bytes = *ring;
  }
  // The image: the build tree's when it is the run's, else the artifact store's copy.
  const std::string live_manifest = !exec.manifest_path.empty()
                                        ? exec.manifest_path
                                        : exec.image_dir + "/" + r.config.image + ".manifest.json";
  Result<lab::ImageManifest> live = lab::ImageManifest::Load(live_manifest);
  std::string manifest = live_manifest;
  if ((!live.ok() || live->sha256 != stored.image_sha256) && store &&
      store->HasImage(stored.image_sha256)) {
    manifest = store->ManifestPathOf(stored.image_sha256);
    r.image_source = "artifact store";
  } else if (!stored.image_sha256.empty() && (!live.ok() || live->sha256 != stored.image_sha256)) {
    return Status::InvalidArgument(
        "image " + stored.image_name + " with SHA-256 " + stored.image_sha256 +
        " is not available: " + live_manifest +
        (live.ok() ? " names SHA-256 " + live->sha256 : ": " + live.status().message()) +
        ", and the artifact store" + store_name +
        " does not hold it (rebuild the image of that run, or point --image-dir at it)");
  }
  exec.manifest_path.clear();
  exec.image_manifests[r.config.image] = manifest;
  if (!stored.image_sha256.empty()) exec.image_sha256[r.config.image] = stored.image_sha256;

  // The ELF: a generated program is regenerated (into a fresh folder, never a cache); a user
  // workload is read from the file the run pinned.
  Result<std::optional<db::RunPins>> pins = db.PinsOfRun(run_id);
  if (!pins.ok()) return pins.status();
  const std::string pinned = *pins ? (*pins)->workload_sha256 : std::string();
  if (r.config.workload == "random") {
    Result<std::shared_ptr<const std::string>> scratch = ScratchFolder(run_id);
    if (!scratch.ok()) return scratch.status();
    r.scratch = *scratch;
    exec.scratch_dir = *r.scratch;
    r.workload_source = "regenerated";
  } else if (*pins && !(*pins)->workload_path.empty() &&
             std::find(BuiltinWorkloads().begin(), BuiltinWorkloads().end(), r.config.workload) ==
                 BuiltinWorkloads().end()) {
    exec.user_workloads[r.config.workload] = (*pins)->workload_path;
  }
  ExecuteOptions exact = exec;  // the replay's plan: a stored program may stand for "random"
  Result<PreparedRun> prepared = PrepareRun(r.config, exact);
  const bool elf_differs =
      !pinned.empty() && (!prepared.ok() || prepared->workload_sha256 != pinned);
  if (elf_differs && store && store->Has(pinned)) {
    exact.workload_path = store->PathOf(pinned);
    if (r.config.workload != "random") exec.user_workloads[r.config.workload] = exact.workload_path;
    r.workload_source = "artifact store";
    prepared = PrepareRun(r.config, exact);
  } else if (elf_differs && prepared.ok()) {
    const std::string gen =
        r.config.workload == "random"
            ? " (generator " + (*pins)->generator_version + " then, " +
                  oracle::kProgramGenVersion + " now)"
            : "";
    return Status::InvalidArgument(
        "run " + std::to_string(run_id) + " ran workload " + r.config.workload + " with ELF " +
        "SHA-256 " + pinned + gen + "; " + prepared->workload_path + " has SHA-256 " +
        prepared->workload_sha256 + ", and the artifact store" + store_name +
        " does not hold the run's ELF: rebuild that ELF exactly, or restore the store");
  }
  if (!prepared.ok()) return prepared.status();
  r.workload_sha256 = prepared->workload_sha256;
  r.prepared = std::make_shared<PreparedRun>(std::move(*prepared));
  r.execute = exec;
  return r;
}

}  // namespace ctte::runner
