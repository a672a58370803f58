// Internal to ctte_runner (not installed for other modules): RunOutcome as a JSON object, so
// that runner code adding keys (replay) builds on the object instead of re-parsing ToJson().
#pragma once

#include <nlohmann/json.hpp>

#include "runner/outcome.h"

namespace ctte::runner::internal {

nlohmann::ordered_json OutcomeToJson(const RunOutcome& outcome);

}  // namespace ctte::runner::internal
