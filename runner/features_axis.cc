// The features axis: value checker, clamp to the image, control check (see features_axis.h).
#include "runner/features_axis.h"

#include <algorithm>

#include "oracle/features.h"
#include "runner/axis_values.h"

namespace ctte::runner {

using nlohmann::json;

namespace {

std::string_view EntryName(std::string_view entry) { return entry.substr(0, entry.find(':')); }

std::string Join(const std::vector<std::string>& entries) {
  if (entries.empty()) return "none";
  std::string out;
  for (const std::string& e : entries) out += (out.empty() ? "" : ",") + e;
  return out;
}

std::vector<std::string> SplitCommas(std::string_view text) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (true) {
    const size_t comma = text.find(',', pos);
    out.emplace_back(text.substr(pos, comma == std::string_view::npos ? comma : comma - pos));
    if (comma == std::string_view::npos) return out;
    pos = comma + 1;
  }
}

}  // namespace

std::vector<std::string> FeatureEntries(std::string_view value) {
  if (value.empty() || value == "none") return {};
  return SplitCommas(value);
}

Status FeatureEntryOnImage(std::string_view entry, const lab::ImageManifest& m) {
  const std::string name(EntryName(entry));
  if (std::find(m.features.begin(), m.features.end(), name) == m.features.end()) {
    std::string compiled;
    for (const std::string& f : m.features) compiled += (compiled.empty() ? "" : ", ") + f;
    return Status::InvalidArgument("image " + m.name + " does not compile " + name +
                                   " (its manifest lists: " +
                                   (compiled.empty() ? std::string("none") : compiled) + ")");
  }
  // A parameter must be the image's: the stack depth is a profile parameter, not a setting.
  const uint32_t depth =
      m.return_stack_depth > 0 ? m.return_stack_depth : oracle::kMaxReturnStackDepth;
  Result<oracle::FeatureSet> f = oracle::ParseFeatures(entry, "feature", depth);
  if (!f.ok()) return f.status();
  if (f->implicit_return_depth > 0 && f->implicit_return_depth != m.return_stack_depth) {
    return Status::InvalidArgument("image " + m.name + " has a return stack of " +
                                   std::to_string(m.return_stack_depth) + ", not " +
                                   std::to_string(f->implicit_return_depth));
  }
  return Status::Ok();
}

std::string ClampFeatures(std::string_view drawn, const lab::ImageManifest& m,
                          std::vector<std::string>* dropped) {
  std::vector<std::string> kept;
  for (std::string& e : FeatureEntries(drawn)) {
    if (FeatureEntryOnImage(e, m).ok()) kept.push_back(std::move(e));
    else if (dropped != nullptr) dropped->push_back(std::move(e));
  }
  return Join(kept);
}

Status CheckControlFeatures(const CampaignSpec& spec, const std::string& image_dir,
                            const std::string& manifest_path) {
  for (size_t k = 0; k < spec.controls.size(); ++k) {
    const ControlSpec& ctl = spec.controls[k];
    for (const auto& [axis, value] : ctl.axes) {
      if (axis != "features" || FeatureEntries(value).empty()) continue;
      const std::string path = "$.controls[" + std::to_string(k) + "].axes.features";
      Result<lab::ImageManifest> m = lab::ImageManifest::Load(
          !manifest_path.empty() ? manifest_path : image_dir + "/" + ctl.image + ".manifest.json");
      if (!m.ok()) {
        return Status::InvalidArgument(path + ": the image of control " + ctl.name + ": " +
                                       m.status().message());
      }
      for (const std::string& e : FeatureEntries(value)) {
        if (Status st = FeatureEntryOnImage(e, *m); !st.ok()) {
          return Status::InvalidArgument(path + ": control " + ctl.name + " fixes '" + e +
                                         "', but " + st.message());
        }
      }
    }
  }
  return Status::Ok();
}

namespace internal {

bool CheckFeaturesValue(const json& v, std::string* canonical, std::string* reason) {
  std::vector<std::string> items;
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s == "none") {
      *canonical = "none";
      return true;
    }
    if (s.empty()) {
      *reason = "empty features value (give none, [] or a list of features)";
      return false;
    }
    items = SplitCommas(s);
  } else if (v.is_array()) {
    for (size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_string()) {
        *reason = "feature [" + std::to_string(i) + "]: wrong type: expected string, got " +
                  JsonTypeName(v[i]);
        return false;
      }
      items.push_back(v[i].get<std::string>());
    }
  } else {
    *reason = std::string("wrong type: expected an array of features or a string, got ") +
              JsonTypeName(v);
    return false;
  }
  std::vector<std::string> entries;
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string& item = items[i];
    const std::string what = "feature [" + std::to_string(i) + "]";
    if (item.empty() || item == "none" || item.find(',') != std::string::npos) {
      *reason = what + " '" + item + "': one feature name per entry (none is the empty list)";
      return false;
    }
    Result<oracle::FeatureSet> f = oracle::ParseFeatures(item, what);
    if (!f.ok()) {
      *reason = f.status().message();
      return false;
    }
    const std::string_view name = EntryName(item);
    // A parameter in its canonical form (implicit-return:016 -> implicit-return:16).
    std::string entry = item.find(':') == std::string::npos ? item : oracle::FormatFeatures(*f);
    for (const std::string& e : entries) {
      if (EntryName(e) == name) {
        *reason = what + " '" + item + "': " + std::string(name) + " is listed twice";
        return false;
      }
    }
    entries.push_back(std::move(entry));
  }
  std::sort(entries.begin(), entries.end());
  *canonical = Join(entries);
  return true;
}

}  // namespace internal
}  // namespace ctte::runner
