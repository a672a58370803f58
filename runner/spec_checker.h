// Internal to runner/ (campaign_spec.cc, spec_controls.cc): the error collector the campaign spec
// parser uses, so every error of a spec is reported with its JSON path (docs/campaign-spec.md).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "runner/axis_values.h"
#include "runner/campaign_spec.h"

namespace ctte::runner::internal {

using nlohmann::json;

inline const char* TypeName(const json& v) { return JsonTypeName(v); }

class Checker {
 public:
  explicit Checker(std::vector<SpecError>* errors) : errors_(errors) {}
  void Error(const std::string& path, const std::string& reason) {
    errors_->push_back({path, reason});
  }
  void WrongType(const std::string& path, const char* want, const json& got) {
    Error(path, std::string("wrong type: expected ") + want + ", got " + TypeName(got));
  }
  /// Reports every key of `obj` not in `known`.
  void UnknownKeys(const std::string& path, const json& obj,
                   std::initializer_list<const char*> known) {
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      bool found = false;
      for (const char* k : known) found = found || it.key() == k;
      if (!found) Error(path + "." + it.key(), "unknown key");
    }
  }
  /// A positive integer no larger than max; reports and returns nullopt otherwise.
  std::optional<uint64_t> PositiveInt(const std::string& path, const json& v, uint64_t max,
                                      const char* what) {
    if (!v.is_number_integer()) {
      WrongType(path, "integer", v);
      return std::nullopt;
    }
    if (v.is_number_unsigned() ? v.get<uint64_t>() == 0 : v.get<int64_t>() <= 0) {
      Error(path, std::string("non-positive ") + what + " " + v.dump());
      return std::nullopt;
    }
    if (!v.is_number_unsigned() || v.get<uint64_t>() > max) {
      Error(path, std::string(what) + " " + v.dump() + " out of range (at most " +
                      std::to_string(max) + ")");
      return std::nullopt;
    }
    return v.get<uint64_t>();
  }

 private:
  std::vector<SpecError>* errors_;
};

/// The spec's "controls" list (docs/campaign-spec.md, "Controls") into spec->controls.
void ParseControls(Checker& c, const json& v, CampaignSpec* spec);

/// The spec's "workloads" table (runner/spec_workloads.cc) into spec->workloads: each ELF read
/// relative to `spec_dir` and checked (ProgramImage::Load), its SHA-256 taken.
void ParseWorkloads(Checker& c, const json& v, const std::string& spec_dir, CampaignSpec* spec);

/// The checker of an axis in `spec`: the workload axis also accepts the spec's user workloads.
ValueChecker AxisCheckerOf(const AxisDef& def, const CampaignSpec& spec);

}  // namespace ctte::runner::internal
