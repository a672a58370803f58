// One stored-run loader (issue #26): what reproduces a stored run, in one place, for replay,
// bisect and triage.
//
// Contract of LoadStoredRun(db, id, options):
//  - The row (NotFound naming the id and the database) and its config_json (InvalidArgument).
//  - The capture ring its campaign asked for ($.capture.ring_bytes of the campaign row's spec).
//  - The image: the build tree's manifest when it names the run's image_sha256, else the
//    artifact store's copy; neither: InvalidArgument naming the image and both digests. The
//    result's `execute` pins it (PlanOptions::image_manifests, image_sha256), so every leg of a
//    bisection or triage that runs this image runs exactly it.
//  - The ELF: a generated program ("random") is regenerated into a fresh folder of the result;
//    a user workload ($.workloads) is read from the file the run pinned; a built-in from
//    workload_dir. When that file's SHA-256 is not the run's pin, the artifact store's copy is
//    used; with none there: InvalidArgument naming the file and both digests. `execute` maps the
//    run's workload name to the file used (PlanOptions::user_workloads).
//  - `prepared`: the run's own config planned with all of the above (the replay's plan).
// Threading: none; the result owns its scratch folder (removed with the last copy).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "base/status.h"
#include "db/database.h"
#include "runner/execute.h"

namespace ctte::runner {

struct StoredRunOptions {
  std::string db_path;       ///< for messages and the default artifact store
  /// The artifact store: "" = "<db_path>.artifacts"; "none" = the build tree only.
  std::string artifacts_dir;
  ExecuteOptions execute;    ///< image_dir, workload_dir, fst_path, ...
};

struct StoredRun {
  db::RunRow row;
  RunConfig config;
  ExecuteOptions execute;                      ///< resolved (see the contract)
  std::shared_ptr<PreparedRun> prepared;       ///< the run's own plan
  std::string image_source = "build tree";     ///< or "artifact store"
  std::string workload_source = "build tree";  ///< or "artifact store", "regenerated"
  std::string workload_sha256;                 ///< the ELF planned (the run's pin when it has one)
  std::shared_ptr<const std::string> scratch;  ///< a regenerated program's folder
};

Result<StoredRun> LoadStoredRun(db::Database& db, int64_t run_id, const StoredRunOptions& options);

}  // namespace ctte::runner
