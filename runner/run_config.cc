// RunConfig JSON round trip and the parsers of structured axis values.
#include "runner/run_config.h"

#include <nlohmann/json.hpp>

#include <cctype>
#include <cinttypes>
#include <cstdio>

#include "base/json.h"
#include "base/text.h"
#include "runner/axis_values.h"

namespace ctte::runner {
namespace {

using nlohmann::ordered_json;

/// Parses a whole decimal number without sign; nullopt on anything else or overflow.
std::optional<uint64_t> ParseDecimal(std::string_view s) {
  if (s.empty() || s.size() > 19) return std::nullopt;
  uint64_t n = 0;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  return n;
}

const char* BackpressureKindName(Backpressure::Kind k) {
  switch (k) {
    case Backpressure::Kind::kNone: return "none";
    case Backpressure::Kind::kUniform: return "uniform";
    case Backpressure::Kind::kBursty: return "bursty";
  }
  return "?";
}

const char* SyncKindName(SyncPolicy::Kind k) {
  switch (k) {
    case SyncPolicy::Kind::kOff: return "off";
    case SyncPolicy::Kind::kMessages: return "messages";
    case SyncPolicy::Kind::kHalfwords: return "halfwords";
  }
  return "?";
}

ordered_json OptionalIndex(const std::optional<uint64_t>& v) {
  return v ? ordered_json(*v) : ordered_json(nullptr);
}

/// Reads fields out of a JSON object, remembering the first fault with its path.
class Reader {
 public:
  explicit Reader(const ordered_json& root) : root_(root) {}
  const ordered_json* Field(const ordered_json& obj, const std::string& path, const char* key) {
    if (!obj.is_object() || !obj.contains(key)) {
      Fail(path + "." + key, "missing required field");
      return nullptr;
    }
    return &obj[key];
  }
  void Fail(const std::string& path, const std::string& reason) {
    if (error_.empty()) error_ = path + ": " + reason;
  }
  void String(const ordered_json& obj, const std::string& path, const char* key,
              std::string* out) {
    const ordered_json* v = Field(obj, path, key);
    if (!v) return;
    if (!v->is_string()) return Fail(path + "." + key, "wrong type: expected string");
    *out = v->get<std::string>();
  }
  template <typename T>
  void Unsigned(const ordered_json& obj, const std::string& path, const char* key, T* out) {
    const ordered_json* v = Field(obj, path, key);
    if (!v) return;
    if (!v->is_number_unsigned()) return Fail(path + "." + key, "wrong type: expected unsigned");
    *out = static_cast<T>(v->get<uint64_t>());
  }
  void OptUnsigned(const ordered_json& obj, const std::string& path, const char* key,
                   std::optional<uint64_t>* out) {
    const ordered_json* v = Field(obj, path, key);
    if (!v) return;
    if (v->is_null()) {
      out->reset();
    } else if (v->is_number_unsigned()) {
      *out = v->get<uint64_t>();
    } else {
      Fail(path + "." + key, "wrong type: expected unsigned or null");
    }
  }
  void Seed(const ordered_json& obj, const std::string& path, const char* key, uint64_t* out) {
    std::string text;
    String(obj, path, key, &text);
    if (!error_.empty()) return;
    auto s = ParseSeedText(text);
    if (!s) return Fail(path + "." + key, "bad seed \"" + text + "\"");
    *out = *s;
  }
  const std::string& error() const { return error_; }
  const ordered_json& root() const { return root_; }

 private:
  const ordered_json& root_;
  std::string error_;
};

}  // namespace

std::string SeedHex(uint64_t seed) { return Hex64(seed); }

std::optional<uint64_t> ParseSeedText(std::string_view text) {
  Result<uint64_t> v = ParseU64Text(text, "seed");
  if (!v.ok()) return std::nullopt;
  return *v;
}

std::optional<Backpressure> ParseBackpressure(std::string_view text, std::string* reason) {
  Backpressure bp;
  if (text == "none") return bp;
  if (text.starts_with("uniform:")) {
    auto p = ParseDecimal(text.substr(8));
    if (!p || *p < 1 || *p > 100) {
      *reason = "uniform:<p> needs a ready percentage p in 1..100";
      return std::nullopt;
    }
    bp.kind = Backpressure::Kind::kUniform;
    bp.ready_percent = static_cast<uint32_t>(*p);
    return bp;
  }
  if (text.starts_with("bursty:")) {
    std::string_view rest = text.substr(7);
    const size_t dash = rest.find('-');
    auto lo = dash == std::string_view::npos ? std::nullopt : ParseDecimal(rest.substr(0, dash));
    auto hi = dash == std::string_view::npos ? std::nullopt : ParseDecimal(rest.substr(dash + 1));
    if (!lo || !hi || *lo < 1 || *lo > *hi || *hi > 65536) {
      *reason = "bursty:<min>-<max> needs 1 <= min <= max <= 65536 sink cycles";
      return std::nullopt;
    }
    bp.kind = Backpressure::Kind::kBursty;
    bp.ready_percent = 0;
    bp.burst_min = static_cast<uint32_t>(*lo);
    bp.burst_max = static_cast<uint32_t>(*hi);
    return bp;
  }
  *reason = "expected none, uniform:<p> or bursty:<min>-<max>";
  return std::nullopt;
}

std::optional<SyncPolicy> ParseSyncPolicy(std::string_view text, std::string* reason) {
  SyncPolicy sp;
  if (text == "off") return sp;
  std::string_view rest;
  if (text.starts_with("messages:")) {
    sp.kind = SyncPolicy::Kind::kMessages;
    rest = text.substr(9);
  } else if (text.starts_with("halfwords:")) {
    sp.kind = SyncPolicy::Kind::kHalfwords;
    rest = text.substr(10);
  } else {
    *reason = "expected off, messages:<period_log2> or halfwords:<period_log2>";
    return std::nullopt;
  }
  auto n = ParseDecimal(rest);
  if (!n || *n < 4 || *n > 19) {
    *reason = "period_log2 must be 4..19 (trTeInstSyncMax 0..15)";
    return std::nullopt;
  }
  sp.period_log2 = static_cast<uint32_t>(*n);
  return sp;
}

std::string RunConfig::AxisValue(std::string_view axis) const {
  const internal::AxisDef* def = internal::FindAxisDef(axis);
  return def ? def->get(*this) : "";
}

std::string RunConfigToJson(const RunConfig& c, int indent) {
  ordered_json j;
  j["campaign"] = c.campaign;
  j["index"] = c.index;
  j["seed"] = SeedHex(c.seed);
  j["twin_of"] = OptionalIndex(c.twin_of);
  j["image"] = c.image;
  ordered_json axes;
  for (const internal::AxisDef& def : internal::AxisDefs()) {
    const std::string text = def.json_get(c);
    if (def.json_optional && text.empty()) continue;
    axes[def.name] = text;
  }
  j["axes"] = axes;
  j["fabric_hz"] = c.fabric_hz;
  j["sink_hz"] = c.sink_hz;
  j["core_stall_percent"] = c.core_stall_percent;
  j["backpressure"] = {{"kind", BackpressureKindName(c.backpressure_params.kind)},
                       {"ready_percent", c.backpressure_params.ready_percent},
                       {"burst_min", c.backpressure_params.burst_min},
                       {"burst_max", c.backpressure_params.burst_max}};
  j["sync"] = {{"kind", SyncKindName(c.sync_params.kind)},
               {"period_log2", c.sync_params.period_log2}};
  j["interrupt_at"] = c.interrupt_at;
  j["interrupt_every"] = c.interrupt_every;
  j["window"] = {{"start", c.window_start},
                 {"pause", OptionalIndex(c.window_pause)},
                 {"resume", OptionalIndex(c.window_resume)},
                 {"stop", OptionalIndex(c.window_stop)}};
  j["stall_seed"] = SeedHex(c.stall_seed);
  j["sink_seed"] = SeedHex(c.sink_seed);
  j["program_seed"] = SeedHex(c.program_seed);
  if (c.control) {
    j["control"] = {{"name", c.control->name},
                    {"round", c.control->round},
                    {"expect_red", c.control->expect_red},
                    {"twin", c.control->twin}};
    if (!c.control->shard.empty()) j["control"]["shard"] = c.control->shard;
  }
  return j.dump(indent);
}

Result<RunConfig> RunConfigFromJson(std::string_view json_text) {
  Result<ordered_json> parsed = ParseJsonText(json_text, "run config");
  if (!parsed.ok()) return parsed.status();
  const ordered_json j = std::move(*parsed);
  if (!j.is_object()) return Status::InvalidArgument("run config: $: expected an object");
  RunConfig c;
  Reader r(j);
  r.String(j, "$", "campaign", &c.campaign);
  r.Unsigned(j, "$", "index", &c.index);
  r.Seed(j, "$", "seed", &c.seed);
  r.OptUnsigned(j, "$", "twin_of", &c.twin_of);
  r.String(j, "$", "image", &c.image);
  if (const ordered_json* axes = r.Field(j, "$", "axes")) {
    for (const internal::AxisDef& def : internal::AxisDefs()) {
      if (def.json_optional && !(axes->is_object() && axes->contains(def.name))) continue;
      std::string text, why;
      r.String(*axes, "$.axes", def.name, &text);
      if (r.error().empty() && !def.json_set(&c, text, &why)) {
        r.Fail(std::string("$.axes.") + def.name, why);
      }
    }
  }
  r.Unsigned(j, "$", "fabric_hz", &c.fabric_hz);
  r.Unsigned(j, "$", "sink_hz", &c.sink_hz);
  r.Unsigned(j, "$", "core_stall_percent", &c.core_stall_percent);
  if (r.error().empty()) {
    std::string why;
    auto bp = ParseBackpressure(c.backpressure, &why);
    if (!bp) r.Fail("$.axes.backpressure", why);
    else c.backpressure_params = *bp;
    auto sp = ParseSyncPolicy(c.sync, &why);
    if (!sp) r.Fail("$.axes.sync", why);
    else c.sync_params = *sp;
  }
  // The structured copies must agree with the axis text they were derived from.
  if (const ordered_json* bp = r.Field(j, "$", "backpressure")) {
    Backpressure stored;
    std::string kind;
    r.String(*bp, "$.backpressure", "kind", &kind);
    r.Unsigned(*bp, "$.backpressure", "ready_percent", &stored.ready_percent);
    r.Unsigned(*bp, "$.backpressure", "burst_min", &stored.burst_min);
    r.Unsigned(*bp, "$.backpressure", "burst_max", &stored.burst_max);
    stored.kind = c.backpressure_params.kind;
    if (r.error().empty() &&
        (kind != BackpressureKindName(stored.kind) || !(stored == c.backpressure_params))) {
      r.Fail("$.backpressure", "does not match $.axes.backpressure");
    }
  }
  if (const ordered_json* sp = r.Field(j, "$", "sync")) {
    std::string kind;
    uint32_t log2 = 0;
    r.String(*sp, "$.sync", "kind", &kind);
    r.Unsigned(*sp, "$.sync", "period_log2", &log2);
    if (r.error().empty() &&
        (kind != SyncKindName(c.sync_params.kind) || log2 != c.sync_params.period_log2)) {
      r.Fail("$.sync", "does not match $.axes.sync");
    }
  }
  if (const ordered_json* at = r.Field(j, "$", "interrupt_at")) {
    if (!at->is_array()) r.Fail("$.interrupt_at", "wrong type: expected array");
    for (size_t i = 0; at->is_array() && i < at->size(); ++i) {
      if (!(*at)[i].is_number_unsigned()) {
        r.Fail("$.interrupt_at[" + std::to_string(i) + "]", "wrong type: expected unsigned");
        break;
      }
      c.interrupt_at.push_back((*at)[i].get<uint64_t>());
    }
  }
  r.Unsigned(j, "$", "interrupt_every", &c.interrupt_every);
  if (const ordered_json* w = r.Field(j, "$", "window")) {
    r.Unsigned(*w, "$.window", "start", &c.window_start);
    r.OptUnsigned(*w, "$.window", "pause", &c.window_pause);
    r.OptUnsigned(*w, "$.window", "resume", &c.window_resume);
    r.OptUnsigned(*w, "$.window", "stop", &c.window_stop);
  }
  r.Seed(j, "$", "stall_seed", &c.stall_seed);
  r.Seed(j, "$", "sink_seed", &c.sink_seed);
  r.Seed(j, "$", "program_seed", &c.program_seed);
  if (j.contains("control")) {
    const ordered_json& m = j["control"];
    ControlMarker marker;
    r.String(m, "$.control", "name", &marker.name);
    r.Unsigned(m, "$.control", "round", &marker.round);
    if (m.contains("shard")) r.String(m, "$.control", "shard", &marker.shard);
    if (const ordered_json* red = r.Field(m, "$.control", "expect_red")) {
      if (!red->is_array()) r.Fail("$.control.expect_red", "wrong type: expected array");
      for (size_t i = 0; red->is_array() && i < red->size(); ++i) {
        if (!(*red)[i].is_string()) {
          r.Fail("$.control.expect_red", "wrong type: expected strings");
          break;
        }
        marker.expect_red.push_back((*red)[i].get<std::string>());
      }
    }
    if (const ordered_json* t = r.Field(m, "$.control", "twin")) {
      if (!t->is_boolean()) r.Fail("$.control.twin", "wrong type: expected boolean");
      else marker.twin = t->get<bool>();
    }
    c.control = std::move(marker);
  }
  for (auto it = j.begin(); it != j.end(); ++it) {
    static const char* kKnown[] = {"campaign", "index", "seed", "twin_of", "image", "axes",
                                   "fabric_hz", "sink_hz", "core_stall_percent",
                                   "backpressure", "sync", "interrupt_at", "interrupt_every",
                                   "window", "stall_seed", "sink_seed", "program_seed",
                                   "control"};
    bool known = false;
    for (const char* k : kKnown) known = known || it.key() == k;
    if (!known) r.Fail("$." + it.key(), "unknown key");
  }
  if (!r.error().empty()) return Status::InvalidArgument("run config: " + r.error());
  return c;
}

}  // namespace ctte::runner
