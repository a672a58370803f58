// `ctte-lab db merge OUT.db IN.db...`: merge lab databases, e.g. the shards of one soak run on
// several lab runners (`soak --shard I/N`), into one file (db/merge.h, docs/ci.md).
// Exit: 0 merged, 2 usage, conflict, damaged input or I/O error (OUT is then left as it was).
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "db/merge.h"
#include "tools/ctte-lab/command.h"

namespace ctte::cli {
namespace {

struct DbFlags {
  std::string output;
  std::vector<std::string> inputs;
  bool keep_spec_versions = false;
  bool json = false;
};

nlohmann::ordered_json CountsJson(const db::MergeCounts& c) {
  return {{"campaigns_added", c.campaigns_added}, {"runs_added", c.runs_added},
          {"runs_present", c.runs_present},       {"replays_added", c.replays_added},
          {"replays_present", c.replays_present}, {"images_added", c.images_added},
          {"boards_added", c.boards_added}};
}

int RunMerge(const DbFlags& f) {
  db::MergeOptions options;
  options.keep_spec_versions = f.keep_spec_versions;
  Result<db::MergeSummary> s = db::MergeDatabases(f.output, f.inputs, options);
  if (!s.ok()) {
    std::fprintf(stderr, "ctte-lab db merge: %s\n", s.status().message().c_str());
    std::fprintf(stderr, "ctte-lab db merge: %s left as it was\n", f.output.c_str());
    return kExitUsage;
  }
  if (f.json) {
    nlohmann::ordered_json j{{"output", f.output}, {"created", s->output_created},
                             {"total", CountsJson(s->total)}};
    j["inputs"] = nlohmann::ordered_json::array();
    for (const db::MergeInputSummary& in : s->inputs) {
      j["inputs"].push_back({{"path", in.path}, {"counts", CountsJson(in.counts)},
                             {"differing_results", in.differing_results}});
    }
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    for (const db::MergeInputSummary& in : s->inputs) {
      const db::MergeCounts& c = in.counts;
      std::printf("%s: %llu runs added, %llu already present, %llu replays added, %llu "
                  "campaigns added\n",
                  in.path.c_str(), static_cast<unsigned long long>(c.runs_added),
                  static_cast<unsigned long long>(c.runs_present),
                  static_cast<unsigned long long>(c.replays_added),
                  static_cast<unsigned long long>(c.campaigns_added));
      for (const std::string& d : in.differing_results) {
        std::fprintf(stderr, "ctte-lab db merge: different result: %s\n", d.c_str());
      }
    }
    std::printf("merged into %s%s: %llu runs added, %llu replays added\n", f.output.c_str(),
                s->output_created ? " (new)" : "",
                static_cast<unsigned long long>(s->total.runs_added),
                static_cast<unsigned long long>(s->total.replays_added));
  }
  return kExitOk;
}

const Registrar kRegistrar({
    "db",
    "Database tools: `db merge OUT IN...` merges shard or lab databases (docs/ci.md)",
    75,
    [](CLI::App& sub) -> std::function<int()> {
      auto flags = std::make_shared<DbFlags>();
      sub.require_subcommand(1);
      CLI::App* merge = sub.add_subcommand(
          "merge",
          "Merge IN databases into OUT (created if absent) in one transaction: campaigns by "
          "name, spec SHA-256 and seed, runs by index; only missing runs are added; runs that "
          "disagree are refused");
      merge->add_option("OUT", flags->output, "output database (never one of the inputs)")
          ->required();
      merge->add_option("IN", flags->inputs, "input databases (read only)")->required();
      merge->add_flag("--keep-spec-versions", flags->keep_spec_versions,
                      "keep a spec changed under the same name and seed as a second campaign "
                      "row instead of refusing the indices both versions ran");
      merge->add_flag("--json", flags->json, "print the merge summary as JSON");
      return [flags, merge]() {
        if (merge->parsed()) return RunMerge(*flags);
        return static_cast<int>(kExitUsage);
      };
    },
});

}  // namespace
}  // namespace ctte::cli
