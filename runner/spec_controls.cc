// The campaign spec's "controls" list (docs/campaign-spec.md, "Controls"; runner/controls.h).
#include <algorithm>
#include <set>
#include <string>

#include "oracle/verdict.h"
#include "runner/spec_checker.h"

namespace ctte::runner::internal {

void ParseControls(Checker& c, const json& v, CampaignSpec* spec) {
  if (!v.is_array()) {
    c.WrongType("$.controls", "array", v);
    return;
  }
  std::set<std::string> names;
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string path = "$.controls[" + std::to_string(i) + "]";
    const json& item = v[i];
    if (!item.is_object()) {
      c.WrongType(path, "object", item);
      continue;
    }
    c.UnknownKeys(path, item, {"name", "description", "image", "axes", "expect_red", "twin"});
    ControlSpec ctl;
    bool ok = true;
    for (const char* key : {"name", "image"}) {
      std::string why;
      std::string* out = std::string(key) == "name" ? &ctl.name : &ctl.image;
      if (!item.contains(key)) {
        c.Error(path + "." + key, "missing required field");
        ok = false;
      } else if (!item[key].is_string()) {
        c.WrongType(path + "." + key, "string", item[key]);
        ok = false;
      } else if (!CheckImageName(item[key], out, &why)) {
        c.Error(path + "." + key, "bad " + std::string(key) + " \"" +
                                      item[key].get<std::string>() + "\" (1-64 of a-z 0-9 - _)");
        ok = false;
      }
    }
    if (ok && !names.insert(ctl.name).second) {
      c.Error(path + ".name", "duplicate control \"" + ctl.name + "\"");
    }
    if (item.contains("description")) {
      if (item["description"].is_string()) ctl.description = item["description"];
      else c.WrongType(path + ".description", "string", item["description"]);
    }
    if (item.contains("twin")) {
      if (item["twin"].is_boolean()) ctl.twin = item["twin"].get<bool>();
      else c.WrongType(path + ".twin", "boolean", item["twin"]);
    }
    if (item.contains("axes")) {
      const json& axes = item["axes"];
      if (!axes.is_object()) {
        c.WrongType(path + ".axes", "object", axes);
      } else {
        for (const AxisDef& def : AxisDefs()) {
          if (!axes.contains(def.name)) continue;
          std::string canonical, reason;
          const std::string apath = path + ".axes." + def.name;
          if (AxisCheckerOf(def, *spec)(axes[def.name], &canonical, &reason)) {
            ctl.axes.emplace_back(def.name, canonical);
          } else {
            c.Error(apath, reason);
          }
        }
        for (auto it = axes.begin(); it != axes.end(); ++it) {
          const auto& defs = AxisDefs();
          if (std::none_of(defs.begin(), defs.end(),
                           [&](const AxisDef& d) { return it.key() == d.name; })) {
            c.Error(path + ".axes." + it.key(), "unknown key (not an axis)");
          }
        }
      }
    }
    if (!item.contains("expect_red")) {
      c.Error(path + ".expect_red", "missing required field (use [] for a clean control)");
    } else if (!item["expect_red"].is_array()) {
      c.WrongType(path + ".expect_red", "array of verdict codes", item["expect_red"]);
    } else {
      std::set<uint16_t> codes;
      const json& red = item["expect_red"];
      for (size_t k = 0; k < red.size(); ++k) {
        const std::string rpath = path + ".expect_red[" + std::to_string(k) + "]";
        std::optional<oracle::VerdictCode> code;
        if (red[k].is_string()) code = oracle::ParseVerdictCode(red[k].get<std::string>());
        if (!code) {
          c.Error(rpath, "unknown verdict code " + red[k].dump() +
                             " (expected one of docs/verdicts.md's codes)");
        } else if (!codes.insert(static_cast<uint16_t>(*code)).second) {
          c.Error(rpath, "duplicate verdict " + red[k].dump());
        }
      }
      for (uint16_t code : codes) {
        ctl.expect_red.push_back(
            oracle::VerdictCodeName(static_cast<oracle::VerdictCode>(code)));
      }
    }
    spec->controls.push_back(std::move(ctl));
  }
}

}  // namespace ctte::runner::internal
