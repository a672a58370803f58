// Internal to runner/: the axis table and the per-axis value checkers of campaign specs
// (docs/campaign-spec.md, "Axes"). A checker validates one JSON value and returns its canonical
// text ("uniform:050" -> "uniform:50") or a reason.
//
// The table is the one place an axis is written down: its name (also its factor name in a
// bisection and its key under $.axes of a RunConfig's JSON), its default, its checker, how a
// RunConfig holds it (get, the JSON text and its reader) and how a bisection reverts it (the
// text and every parameter the axis drew). AxisNames(), RunConfig::AxisValue, the JSON's axes
// block, DifferingFactors and RevertFactor are derived from it; tests/runner/axis_table_test.cc
// checks that every row reverts and round-trips.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace ctte::runner {
struct RunConfig;
}

namespace ctte::runner::internal {

/// "integer", "number", "string", ... as used in "wrong type" errors.
const char* JsonTypeName(const nlohmann::json& v);

using ValueChecker =
    std::function<bool(const nlohmann::json&, std::string* canonical, std::string* reason)>;

struct AxisDef {
  const char* name;           ///< also the factor name and the key under $.axes in the JSON
  const char* default_value;  ///< "" for fabric_mhz (its default is clocks.fabric_mhz)
  ValueChecker check;
  /// The axis value of a config, as canonical text ("none" for features off).
  std::string (*get)(const RunConfig&);
  /// $.axes.<name> of the config's JSON: the text written ("" with json_optional: left out).
  std::string (*json_get)(const RunConfig&);
  /// Sets the axis text from $.axes.<name>; false with *reason when the text is bad.
  bool (*json_set)(RunConfig*, const std::string& text, std::string* reason);
  bool json_optional;  ///< the key may be absent (features: configs from before the axis)
  /// Copies the axis text and every parameter the axis drew from `from` into *to.
  void (*revert)(RunConfig* to, const RunConfig& from);
};

/// Every axis, in the fixed order of AxisNames().
const std::vector<AxisDef>& AxisDefs();
/// The row of axis `name`, or nullptr.
const AxisDef* FindAxisDef(std::string_view name);
/// Image and campaign names: 1-64 of a-z 0-9 - _.
bool CheckImageName(const nlohmann::json& v, std::string* canonical, std::string* reason);

}  // namespace ctte::runner::internal
