// The "workloads" table of a campaign spec (docs/campaign-spec.md, "Workloads"): a lab's own
// ELF files as values of the workload axis. Each file is read once here: ProgramImage::Load
// checks it (present, an ELF, ELFCLASS64 RISC-V, segments inside the platform's RAM) and its
// SHA-256 pins the campaign (PinnedSpecText) and every run of it (runs' content pins).
#include <algorithm>
#include <filesystem>
#include <system_error>

#include "base/sha256.h"
#include "oracle/program_image.h"
#include "runner/spec_checker.h"

namespace ctte::runner {

const std::vector<std::string>& BuiltinWorkloads() {
  static const std::vector<std::string> names = {"loop", "calls", "ptrchase", "sort",
                                                 "switch", "traps", "random"};
  return names;
}

const UserWorkload* CampaignSpec::user_workload(std::string_view workload) const {
  for (const UserWorkload& w : workloads) {
    if (w.name == workload) return &w;
  }
  return nullptr;
}

std::string PinnedSpecText(const std::string& text, const CampaignSpec& spec) {
  if (spec.workloads.empty()) return text;
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(text);
  nlohmann::ordered_json table = nlohmann::ordered_json::object();
  for (const UserWorkload& w : spec.workloads) {
    table[w.name] = {{"elf", w.elf}, {"sha256", w.sha256}};
  }
  j["workloads"] = table;
  return j.dump(2) + "\n";
}

namespace internal {

void ParseWorkloads(Checker& c, const json& v, const std::string& spec_dir, CampaignSpec* spec) {
  if (!v.is_object()) {
    c.WrongType("$.workloads", "object (name -> ELF path)", v);
    return;
  }
  const std::vector<std::string>& builtin = BuiltinWorkloads();
  for (auto it = v.begin(); it != v.end(); ++it) {
    const std::string path = "$.workloads." + it.key();
    UserWorkload w;
    std::string why;
    if (!CheckImageName(json(it.key()), &w.name, &why)) {
      c.Error(path, "bad workload name \"" + it.key() + "\" (1-64 of a-z 0-9 - _)");
      continue;
    }
    if (std::find(builtin.begin(), builtin.end(), w.name) != builtin.end()) {
      c.Error(path, "\"" + w.name + "\" is a built-in workload: give the file another name");
      continue;
    }
    std::string pinned;
    const json& item = it.value();
    if (item.is_string()) {
      w.elf = item.get<std::string>();
    } else if (item.is_object()) {
      c.UnknownKeys(path, item, {"elf", "sha256"});
      if (!item.contains("elf")) {
        c.Error(path + ".elf", "missing required field");
        continue;
      }
      if (!item["elf"].is_string()) {
        c.WrongType(path + ".elf", "string", item["elf"]);
        continue;
      }
      w.elf = item["elf"].get<std::string>();
      if (item.contains("sha256")) {
        const json& d = item["sha256"];
        pinned = d.is_string() ? d.get<std::string>() : std::string();
        const auto is_hex = [](char ch) {
          return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f');
        };
        const bool hex =
            pinned.size() == 64 && std::all_of(pinned.begin(), pinned.end(), is_hex);
        if (!hex) {
          c.Error(path + ".sha256", "expected 64 lower-case hex digits");
          continue;
        }
      }
    } else {
      c.WrongType(path, "string (ELF path) or object {\"elf\", \"sha256\"}", item);
      continue;
    }
    if (w.elf.empty()) {
      c.Error(path, "empty ELF path");
      continue;
    }
    std::filesystem::path file(w.elf);
    if (file.is_relative()) file = std::filesystem::path(spec_dir.empty() ? "." : spec_dir) / file;
    std::error_code ec;
    const std::filesystem::path abs = std::filesystem::absolute(file, ec);
    w.path = (ec ? file : abs).lexically_normal().string();  // pinned runs name it from anywhere
    Result<oracle::ProgramImage> image = oracle::ProgramImage::Load(w.path);
    if (!image.ok()) {
      c.Error(path, image.status().message());
      continue;
    }
    Result<std::string> digest = Sha256File(w.path);
    if (!digest.ok()) {
      c.Error(path, w.path + ": " + digest.status().message());
      continue;
    }
    w.sha256 = *digest;
    if (!pinned.empty() && pinned != w.sha256) {
      c.Error(path + ".sha256", w.path + " has SHA-256 " + w.sha256 + ", the spec pins " + pinned);
      continue;
    }
    spec->workloads.push_back(std::move(w));
  }
}

ValueChecker AxisCheckerOf(const AxisDef& def, const CampaignSpec& spec) {
  if (std::string_view(def.name) != "workload" || spec.workloads.empty()) return def.check;
  std::vector<std::string> names;
  for (const UserWorkload& w : spec.workloads) names.push_back(w.name);
  ValueChecker builtin = def.check;
  return [builtin, names](const json& v, std::string* canonical, std::string* reason) {
    if (v.is_string() &&
        std::find(names.begin(), names.end(), v.get<std::string>()) != names.end()) {
      *canonical = v.get<std::string>();
      return true;
    }
    if (builtin(v, canonical, reason)) return true;
    if (v.is_string()) {
      std::string list;
      for (const std::string& n : names) list += ", " + n;
      *reason += " or a $.workloads name (" + list.substr(2) + ")";
    }
    return false;
  };
}

}  // namespace internal
}  // namespace ctte::runner
