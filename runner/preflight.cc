// PreflightCampaign (see preflight.h): the value-level checks, then a scan of the draws.
#include "runner/preflight.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <utility>

#include "lab/image_manifest.h"
#include "lab/pll.h"
#include "oracle/program_image.h"
#include "runner/draw.h"
#include "runner/workload_xlen.h"

namespace ctte::runner {
namespace {

// Problem indices by the value (or value pair) that causes them.
struct Index {
  std::map<std::string, size_t> image, regime;
  std::map<std::string, size_t> fabric;                           // PLL range
  std::map<std::pair<std::string, std::string>, size_t> closure;  // (image, fabric_mhz)
  std::map<std::pair<std::string, std::string>, size_t> width;    // (image, workload)
};

}  // namespace

PreflightReport PreflightCampaign(const CampaignSpec& spec, const PlanOptions& o,
                                  uint64_t max_scan) {
  PreflightReport out;
  Index ix;
  const auto add = [&out](InfraCause cause, std::string reason) {
    out.problems.push_back({cause, std::move(reason), {}, 0});
    return out.problems.size() - 1;
  };
  std::map<std::string, lab::ImageManifest> manifests;
  for (const WeightedValue& image : spec.images) {
    const std::string path = !o.manifest_path.empty()
                                 ? o.manifest_path
                                 : o.image_dir + "/" + image.value + ".manifest.json";
    Result<lab::ImageManifest> m = lab::ImageManifest::Load(path);
    if (!m.ok()) {
      ix.image[image.value] = add(InfraCause::kPrepare, "image " + image.value + ": " +
                                                            m.status().ToString());
    } else {
      manifests[image.value] = *m;
    }
  }
  for (const WeightedValue& mhz : spec.axis("fabric_mhz").values) {
    const uint64_t hz = std::stoull(mhz.value) * 1'000'000;
    Result<uint64_t> programmed = lab::PllModel().Set(hz);
    if (!programmed.ok()) {
      ix.fabric[mhz.value] = add(InfraCause::kClock, "fabric_mhz " + mhz.value + ": " +
                                                         programmed.status().message());
      continue;
    }
    for (const auto& [name, m] : manifests) {
      if (static_cast<double>(*programmed) > m.fmax_mhz * 1e6) {
        ix.closure[{name, mhz.value}] =
            add(InfraCause::kClosureGate,
                "fabric_mhz " + mhz.value + " on image " + name + ": the PLL programs " +
                    std::to_string(*programmed) + " Hz, above the image's declared fmax " +
                    std::to_string(m.fmax_mhz) + " MHz (closure gate)");
      }
    }
  }
  for (const WeightedValue& regime : spec.axis("overflow_regime").values) {
    const OverflowRegimeRow* row = FindOverflowRegime(regime.value.c_str());
    if (row == nullptr) continue;  // the spec parser refuses unknown regimes
    const uint64_t hz = uint64_t{spec.sink_mhz} * 1'000'000 / row->sink_divisor;
    if (Result<uint64_t> p = lab::PllModel().Set(hz); !p.ok()) {
      ix.regime[regime.value] =
          add(InfraCause::kClock, "overflow_regime " + regime.value + " (sink clock " +
                                      std::to_string(spec.sink_mhz) + " MHz / " +
                                      std::to_string(row->sink_divisor) +
                                      "): " + p.status().message());
    }
  }
  // Workloads: the ELF each (image, workload) pair runs must exist, load, and have the image's
  // class (runner/workload_xlen.h). A file shared by several pairs is reported once.
  const auto check_elf = [](const std::string& path) {
    std::error_code ec;
    return std::filesystem::is_regular_file(path, ec) ? oracle::ProgramImage::Load(path).status()
                                                      : Status::NotFound("no workload ELF " + path);
  };
  std::map<std::string, size_t> by_path;  // a problem of a file, by path
  std::map<std::string, size_t> by_pair;  // a class mismatch, by "<xlen>:<path>"
  const auto pair_problem = [&](const std::string& image, const lab::ImageManifest* m,
                                const std::string& workload, const std::string& path) {
    std::optional<size_t> idx;
    if (auto it = by_path.find(path); it != by_path.end()) {
      idx = it->second;
    } else if (Status st = check_elf(path); !st.ok()) {
      // A class the loader refuses is reported as a mismatch with the image below when the
      // header is readable, so only refuse here what is not a question of width.
      Result<uint32_t> cls = ElfXlen(path);
      if (!cls.ok() || m == nullptr || *cls == ImageXlen(*m)) {
        idx = by_path[path] = add(InfraCause::kPrepare, "workload " + workload + ": " +
                                                            st.ToString());
      }
    }
    if (!idx && m != nullptr) {
      const std::string key = std::to_string(ImageXlen(*m)) + ":" + path;
      if (auto it = by_pair.find(key); it != by_pair.end()) {
        idx = it->second;
      } else if (Status st = CheckWorkloadXlen(*m, workload, path); !st.ok()) {
        idx = by_pair[key] = add(InfraCause::kPrepare, st.message());
      }
    }
    if (idx) ix.width[{image, workload}] = *idx;
  };
  if (o.workload_path.empty()) {
    for (const WeightedValue& w : spec.axis("workload").values) {
      if (w.value == "random") continue;  // generated per run, for the image's width
      auto user = o.user_workloads.find(w.value);
      for (const WeightedValue& image : spec.images) {
        auto m = manifests.find(image.value);
        const lab::ImageManifest* mp = m == manifests.end() ? nullptr : &m->second;
        const std::string path =
            user != o.user_workloads.end()
                ? user->second
                : BuiltinWorkloadPath(o.workload_dir, w.value, mp ? ImageXlen(*mp) : 64);
        pair_problem(image.value, mp, w.value, path);
      }
    }
  } else {
    for (const auto& [name, m] : manifests) pair_problem(name, &m, "--workload-elf", o.workload_path);
  }
  if (out.problems.empty()) return out;

  const uint64_t scan = std::min<uint64_t>(spec.runs.value_or(max_scan), max_scan);
  const auto hit = [&out](const auto& map, const auto& key, uint64_t i) {
    auto it = map.find(key);
    if (it == map.end()) return false;
    PreflightProblem& p = out.problems[it->second];
    ++p.runs_hit;
    if (p.first_runs.size() < kPreflightRunsPerProblem) p.first_runs.push_back(i);
    return true;
  };
  for (uint64_t i = 0; i < scan; ++i) {
    const RunConfig c = Draw(spec, i);
    const std::string mhz = std::to_string(c.fabric_mhz);
    // The first failing step of a run, in the order the soak meets them.
    hit(ix.image, c.image, i) ||
        hit(ix.width, std::make_pair(c.image, o.workload_path.empty() ? c.workload
                                                                       : "--workload-elf"),
            i) ||
        hit(ix.fabric, mhz, i) ||
        hit(ix.regime, c.overflow_regime, i) || hit(ix.closure, std::make_pair(c.image, mhz), i);
  }
  out.scanned = scan;
  return out;
}

}  // namespace ctte::runner
