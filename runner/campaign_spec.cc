// Campaign spec parsing and validation.
//
// What and how: the JSON is parsed with nlohmann::json (syntax errors report the byte offset),
// then walked field by field. Every check appends a SpecError {JSON path, reason} and carries on,
// so the caller sees all faults at once. Axis values are validated by one checker per axis, which
// also returns the canonical text of the value (used for duplicate detection and stored in runs).
#include "runner/campaign_spec.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <functional>
#include <limits>
#include <set>

#include "base/check.h"
#include "base/files.h"
#include "base/json.h"
#include "base/text.h"
#include "oracle/verdict.h"
#include "runner/axis_values.h"
#include "runner/run_config.h"
#include "runner/spec_checker.h"

namespace ctte::runner {
namespace {

using internal::AxisDef;
using internal::Checker;
using internal::ParseControls;
using internal::AxisDefs;
using internal::CheckImageName;
using internal::ValueChecker;
using nlohmann::json;

constexpr uint64_t kMaxWeight = 1'000'000;
constexpr uint32_t kMaxMhz = 1000;


/// A weighted list: [v, v, ...] or [{"value": v, "weight": w}, ...], mixed freely.
std::vector<WeightedValue> ParseWeightedList(Checker& c, const std::string& path, const json& v,
                                             const ValueChecker& check) {
  std::vector<WeightedValue> out;
  if (!v.is_array()) {
    c.WrongType(path, "array", v);
    return out;
  }
  if (v.empty()) {
    c.Error(path, "empty axis: give at least one value");
    return out;
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string ipath = path + "[" + std::to_string(i) + "]";
    const json& item = v[i];
    const json* value = &item;
    std::string value_path = ipath;
    uint64_t weight = 1;
    bool weight_ok = true;
    if (item.is_object()) {
      c.UnknownKeys(ipath, item, {"value", "weight"});
      if (!item.contains("value")) {
        c.Error(ipath + ".value", "missing required field");
        continue;
      }
      value = &item["value"];
      value_path = ipath + ".value";
      if (item.contains("weight")) {
        auto w = c.PositiveInt(ipath + ".weight", item["weight"], kMaxWeight, "weight");
        weight_ok = w.has_value();
        if (w) weight = *w;
      }
    }
    std::string canonical;
    std::string reason;
    if (!check(*value, &canonical, &reason)) {
      c.Error(value_path, reason);
      continue;
    }
    if (!seen.insert(canonical).second) {
      c.Error(value_path, "duplicate value \"" + canonical + "\"");
      continue;
    }
    if (weight_ok) out.push_back({canonical, weight});
  }
  return out;
}

std::optional<uint64_t> ParseSeed(Checker& c, const json& v) {
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_number_integer()) {
    c.Error("$.seed", "seed out of range: " + v.dump() + " is negative (0..2^64-1)");
    return std::nullopt;
  }
  if (v.is_number_float()) {
    c.Error("$.seed",
            "seed out of range: " + v.dump() +
                " is not an unsigned 64-bit integer (use a \"0x...\" string for large seeds)");
    return std::nullopt;
  }
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && s.size() > 18 &&
        std::all_of(s.begin() + 2, s.end(), [](char ch) { return std::isxdigit(
                                                               static_cast<unsigned char>(ch)); })) {
      c.Error("$.seed", "seed out of range: \"" + s + "\" has more than 64 bits");
      return std::nullopt;
    }
    auto parsed = ParseSeedText(s);
    if (!parsed) c.Error("$.seed", "bad seed \"" + s + "\" (expected \"0x\" and 1-16 hex digits)");
    return parsed;
  }
  c.WrongType("$.seed", "unsigned integer or \"0x...\" string", v);
  return std::nullopt;
}

void ParseClocks(Checker& c, const json& v, CampaignSpec* spec) {
  if (!v.is_object()) {
    c.WrongType("$.clocks", "object", v);
    return;
  }
  c.UnknownKeys("$.clocks", v, {"fabric_mhz", "sink_mhz"});
  if (v.contains("fabric_mhz")) {
    if (auto m = c.PositiveInt("$.clocks.fabric_mhz", v["fabric_mhz"], kMaxMhz, "clock")) {
      spec->fabric_mhz = static_cast<uint32_t>(*m);
    }
  }
  if (v.contains("sink_mhz")) {
    if (auto m = c.PositiveInt("$.clocks.sink_mhz", v["sink_mhz"], kMaxMhz, "clock")) {
      spec->sink_mhz = static_cast<uint32_t>(*m);
    }
  }
}

// $.capture: what a campaign asks of the board's capture path (docs/campaign-spec.md).
void ParseCapture(Checker& c, const json& v, CampaignSpec* spec) {
  if (!v.is_object()) {
    c.WrongType("$.capture", "object", v);
    return;
  }
  c.UnknownKeys("$.capture", v, {"ring_bytes"});
  if (v.contains("ring_bytes")) {
    if (auto r = c.PositiveInt("$.capture.ring_bytes", v["ring_bytes"], kMaxSpecRingBytes,
                               "ring size")) {
      spec->ring_bytes = *r;
    }
  }
}

void ParseAxes(Checker& c, const json& v, CampaignSpec* spec) {
  if (!v.is_object()) {
    c.WrongType("$.axes", "object", v);
    return;
  }
  for (auto it = v.begin(); it != v.end(); ++it) {
    const auto& defs = AxisDefs();
    if (std::none_of(defs.begin(), defs.end(),
                     [&](const AxisDef& d) { return it.key() == d.name; })) {
      c.Error("$.axes." + it.key(), "unknown key (not an axis)");
    }
  }
  for (const AxisDef& def : AxisDefs()) {
    Axis axis{def.name, {}};
    if (v.contains(def.name)) {
      axis.values = ParseWeightedList(c, std::string("$.axes.") + def.name, v[def.name],
                                      internal::AxisCheckerOf(def, *spec));
    }
    spec->axes.push_back(std::move(axis));
  }
}


}  // namespace

const std::vector<std::string>& AxisNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const AxisDef& d : AxisDefs()) n.push_back(d.name);
    return n;
  }();
  return names;
}

std::string AxisDefault(std::string_view axis) {
  for (const AxisDef& d : AxisDefs()) {
    if (axis == d.name) return d.default_value;
  }
  return "";
}

const Axis& CampaignSpec::axis(std::string_view axis_name) const {
  for (const Axis& a : axes) {
    if (a.name == axis_name) return a;
  }
  CTTE_CHECK(false, "CampaignSpec::axis: unknown axis name");
  return axes.front();
}

std::optional<uint64_t> ParseDuration(std::string_view text) {
  uint64_t total = 0;
  size_t i = 0;
  if (text.empty()) return std::nullopt;
  while (i < text.size()) {
    uint64_t n = 0;
    size_t digits = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      if (n > 100'000'000) return std::nullopt;
      n = n * 10 + static_cast<uint64_t>(text[i] - '0');
      ++i;
      ++digits;
    }
    if (digits == 0 || i == text.size()) return std::nullopt;
    const char unit = text[i++];
    if (unit == 'h') total += n * 3600;
    else if (unit == 'm') total += n * 60;
    else if (unit == 's') total += n;
    else return std::nullopt;
  }
  if (total == 0) return std::nullopt;
  return total;
}

SpecCheck ParseCampaignSpec(std::string_view json_text, const std::string& spec_dir) {
  SpecCheck out;
  Checker c(&out.errors);
  // One strict reader (base/json.h): duplicate keys, a BOM, out-of-range numbers, oversized or
  // too deep input are errors with their JSON path and byte offset.
  Result<nlohmann::ordered_json> parsed = ParseJsonText(json_text, "spec");
  if (!parsed.ok()) {
    std::string m = parsed.status().message();
    if (m.rfind("spec: ", 0) == 0) m = m.substr(6);
    const size_t sep = m.rfind("$", 0) == 0 ? m.find(": ") : std::string::npos;
    if (sep == std::string::npos) c.Error("$", m);
    else c.Error(m.substr(0, sep), m.substr(sep + 2));
    return out;
  }
  const json doc = *parsed;
  if (!doc.is_object()) {
    c.WrongType("$", "object", doc);
    return out;
  }
  CampaignSpec& spec = out.spec;
  c.UnknownKeys("$", doc,
                {"name", "description", "seed", "runs", "budget", "images", "clocks",
                 "horizon_retirements", "determinism_pairs", "axes", "controls", "workloads",
                 "capture"});

  if (!doc.contains("name")) {
    c.Error("$.name", "missing required field");
  } else if (!doc["name"].is_string()) {
    c.WrongType("$.name", "string", doc["name"]);
  } else {
    std::string why;
    json name = doc["name"];
    if (!CheckImageName(name, &spec.name, &why)) {
      c.Error("$.name", "bad campaign name " + QuoteForMessage(name.get<std::string>()) +
                            " (1-64 of a-z 0-9 - _)");
    }
  }
  if (doc.contains("description")) {
    if (doc["description"].is_string()) spec.description = doc["description"].get<std::string>();
    else c.WrongType("$.description", "string", doc["description"]);
  }
  if (!doc.contains("seed")) {
    c.Error("$.seed", "missing required field");
  } else if (auto s = ParseSeed(c, doc["seed"])) {
    spec.seed = *s;
  }

  const bool has_runs = doc.contains("runs");
  const bool has_budget = doc.contains("budget");
  if (has_runs && has_budget) {
    c.Error("$.runs", "runs and budget both given: give exactly one");
  } else if (!has_runs && !has_budget) {
    c.Error("$.runs", "missing required field: give runs or budget");
  }
  if (has_runs) spec.runs = c.PositiveInt("$.runs", doc["runs"], kMaxRuns, "run count");
  if (has_budget) {
    const json& b = doc["budget"];
    if (!b.is_string()) {
      c.WrongType("$.budget", "string such as \"2h\", \"30m\", \"90s\"", b);
    } else if (auto secs = ParseDuration(b.get<std::string>())) {
      if (*secs > kMaxBudgetSeconds) {
        c.Error("$.budget", "budget " + QuoteForMessage(b.get<std::string>()) +
                                " out of range (at most 30 days, 720h)");
      } else {
        spec.budget_seconds = secs;
      }
    } else {
      c.Error("$.budget", "bad duration " + QuoteForMessage(b.get<std::string>()) +
                              " (expected <n>h, <n>m, <n>s or a sum such as 1h30m)");
    }
  }

  if (!doc.contains("images")) {
    c.Error("$.images", "missing required field");
  } else {
    spec.images = ParseWeightedList(c, "$.images", doc["images"], CheckImageName);
  }
  if (doc.contains("clocks")) ParseClocks(c, doc["clocks"], &spec);
  if (doc.contains("capture")) ParseCapture(c, doc["capture"], &spec);
  if (doc.contains("horizon_retirements")) {
    if (auto h = c.PositiveInt("$.horizon_retirements", doc["horizon_retirements"],
                               1'000'000'000, "horizon")) {
      if (*h < 64) c.Error("$.horizon_retirements", "horizon must be at least 64 retirements");
      else spec.horizon_retirements = *h;
    }
  }
  if (doc.contains("determinism_pairs")) {
    const json& f = doc["determinism_pairs"];
    if (!f.is_number()) {
      c.WrongType("$.determinism_pairs", "number", f);
    } else if (!(f.get<double>() >= 0.0 && f.get<double>() <= 1.0)) {
      c.Error("$.determinism_pairs", "fraction " + f.dump() + " out of range (0..1)");
    } else {
      spec.determinism_pairs_ppm =
          static_cast<uint32_t>(f.get<double>() * 1'000'000.0 + 0.5);
    }
  }
  if (doc.contains("workloads")) internal::ParseWorkloads(c, doc["workloads"], spec_dir, &spec);
  if (doc.contains("axes")) {
    ParseAxes(c, doc["axes"], &spec);
  } else {
    for (const AxisDef& def : AxisDefs()) spec.axes.push_back({def.name, {}});
  }
  if (doc.contains("controls")) ParseControls(c, doc["controls"], &spec);
  // Axes left out (or wholly invalid) take their single default value.
  for (Axis& a : spec.axes) {
    if (!a.values.empty()) continue;
    a.values.push_back({a.name == "fabric_mhz" ? std::to_string(spec.fabric_mhz)
                                               : AxisDefault(a.name),
                        1});
  }
  return out;
}

Result<uint64_t> CaptureRingOfSpecText(std::string_view spec_text) {
  if (spec_text.empty()) return lab::kDefaultRingBytes;  // a row that kept no spec text
  CTTE_ASSIGN_OR_RETURN(const nlohmann::ordered_json doc, ParseJsonText(spec_text, "spec"));
  if (!doc.is_object()) return Status::InvalidArgument("spec: $: expected an object");
  if (!doc.contains("capture")) return lab::kDefaultRingBytes;
  std::vector<SpecError> errors;
  Checker c(&errors);
  CampaignSpec spec;
  ParseCapture(c, doc["capture"], &spec);
  if (!errors.empty()) return Status::InvalidArgument("spec: " + errors.front().ToString());
  return spec.ring_bytes;
}

std::string FormatSpecErrors(const std::string& path, const std::vector<SpecError>& errors) {
  std::string out;
  for (size_t i = 0; i < errors.size() && i < kMaxPrintedSpecErrors; ++i) {
    out += path + ": " + errors[i].ToString() + "\n";
  }
  if (errors.size() > kMaxPrintedSpecErrors) {
    out += path + ": ... and " + std::to_string(errors.size() - kMaxPrintedSpecErrors) +
           " more error(s)\n";
  }
  return out;
}

Result<SpecCheck> LoadCampaignSpec(const std::string& path) {
  auto text = ReadFileText(path);
  if (!text.ok()) return text.status();
  return ParseCampaignSpec(*text, std::filesystem::path(path).parent_path().string());
}

}  // namespace ctte::runner
