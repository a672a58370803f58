// Opening a campaign row for a spec: the one way `soak` and `campaign plan` do it, so one spec
// is one campaign row whichever command opened it first (docs/db-schema.md "campaigns").
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/status.h"
#include "db/database.h"
#include "runner/campaign_spec.h"

namespace ctte::runner {

/// The text a campaign row stores for `spec`, read from `text`: user workloads pinned by
/// SHA-256 (PinnedSpecText), and "seed" replaced when a --seed overrides the spec's (another
/// seed, another campaign). Its SHA-256 identifies the row.
std::string StoredSpecText(const std::string& text, const CampaignSpec& spec,
                           std::optional<uint64_t> seed_override = std::nullopt);

/// The campaign row of `stored_text` (StoredSpecText), made when the database has none with
/// that SHA-256 (db::Database::UpsertCampaign).
Result<int64_t> OpenCampaign(db::Database& db, const CampaignSpec& spec,
                             const std::string& stored_text);

}  // namespace ctte::runner
