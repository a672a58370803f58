// Keeping what a campaign used in the artifact store (db/artifacts.h): the images and workload
// ELFs of its spec when it starts, and what its runs pinned (generated programs, images found
// later) when it ends. Only files whose digest is the one the run recorded are kept.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"
#include "db/artifacts.h"
#include "db/database.h"
#include "runner/campaign_spec.h"
#include "runner/plan.h"

namespace ctte::runner {

/// Every image (spec images and control images, from options.image_dir) and every workload
/// ELF (built-in from workload_dir, user from user_workloads) of `spec` that exists. Files
/// missing are skipped (preflight reports them); a store that cannot be written is an error.
Status StoreSpecArtifacts(const CampaignSpec& spec, const PlanOptions& options,
                          db::ArtifactStore& store);

/// What the runs of campaign row `campaign_id` pinned and the store lacks: each run's ELF (from
/// its pinned path, when the file still has the pinned digest) and image (from image_dir, when
/// the manifest names the run's digest). Returns how many artifacts were added.
Result<uint64_t> StoreRunArtifacts(const db::Database& db, int64_t campaign_id,
                                   const PlanOptions& options, db::ArtifactStore& store);

/// Keeps one image by its manifest file (bytes and manifest).
Status StoreImage(const std::string& manifest_path, db::ArtifactStore& store);

}  // namespace ctte::runner
