// Internal to runner/: the axis table and the per-axis value checkers of campaign specs
// (docs/campaign-spec.md, "Axes"). A checker validates one JSON value and returns its canonical
// text ("uniform:050" -> "uniform:50") or a reason.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

namespace ctte::runner::internal {

/// "integer", "number", "string", ... as used in "wrong type" errors.
const char* JsonTypeName(const nlohmann::json& v);

using ValueChecker =
    std::function<bool(const nlohmann::json&, std::string* canonical, std::string* reason)>;

struct AxisDef {
  const char* name;
  const char* default_value;  ///< "" for fabric_mhz (its default is clocks.fabric_mhz)
  ValueChecker check;
};

/// Every axis, in the fixed order of AxisNames().
const std::vector<AxisDef>& AxisDefs();
/// Image and campaign names: 1-64 of a-z 0-9 - _.
bool CheckImageName(const nlohmann::json& v, std::string* canonical, std::string* reason);

}  // namespace ctte::runner::internal
