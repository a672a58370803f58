#include "runner/campaign_open.h"

#include <nlohmann/json.hpp>

#include "base/text.h"
#include "runner/run_config.h"

namespace ctte::runner {

std::string StoredSpecText(const std::string& text, const CampaignSpec& spec,
                           std::optional<uint64_t> seed_override) {
  std::string stored = PinnedSpecText(text, spec);
  if (seed_override) {
    nlohmann::ordered_json j = nlohmann::ordered_json::parse(stored);
    j["seed"] = SeedHex(*seed_override);
    stored = j.dump(2) + "\n";
  }
  return stored;
}

Result<int64_t> OpenCampaign(db::Database& db, const CampaignSpec& spec,
                             const std::string& stored_text) {
  return db.UpsertCampaign({spec.name, spec.description, spec.seed, stored_text, NowIsoUtc()});
}

}  // namespace ctte::runner
