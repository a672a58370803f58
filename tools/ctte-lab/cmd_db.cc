// `ctte-lab db merge OUT.db IN.db...`: merge lab databases, e.g. the shards of one soak run on
// several lab runners (`soak --shard I/N`), into one file (db/merge.h, docs/ci.md).
// Exit: 0 merged, 2 usage, conflict, damaged input or I/O error (OUT is then left as it was).
// `ctte-lab db gc --db DB`: remove from DB's artifact store what no run of DB refers to.
// Exit: 0 done, 2 usage, no database or I/O error.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "db/artifacts.h"
#include "db/database.h"
#include "db/merge.h"
#include "tools/ctte-lab/command.h"

namespace ctte::cli {
namespace {

struct DbFlags {
  std::string output;
  std::vector<std::string> inputs;
  bool keep_spec_versions = false;
  bool keep_differing = false;
  bool json = false;
  std::string db_path = "out/ctte.db";  ///< gc
  std::string artifacts;                ///< gc: "" = <db>.artifacts
  bool dry_run = false;                 ///< gc
};

int RunGc(const DbFlags& f) {
  const auto fail = [](const Status& s) {
    std::fprintf(stderr, "ctte-lab db gc: %s\n", s.ToString().c_str());
    return static_cast<int>(kExitUsage);
  };
  auto db = db::Database::OpenReadOnly(f.db_path);
  if (!db.ok()) return fail(db.status());
  Result<std::vector<std::string>> referenced = (*db)->ReferencedDigests();
  if (!referenced.ok()) return fail(referenced.status());
  const db::ArtifactStore store(f.artifacts.empty() ? db::ArtifactStore::DefaultRoot(f.db_path)
                                                    : f.artifacts);
  Result<db::GcResult> r = store.Gc(*referenced, f.dry_run);
  if (!r.ok()) return fail(r.status());
  if (f.json) {
    nlohmann::ordered_json j{{"store", store.root()},         {"dry_run", f.dry_run},
                             {"kept", r->kept},               {"removed", r->removed},
                             {"bytes_removed", r->bytes_removed},
                             {"removed_digests", r->removed_digests}};
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    for (const std::string& d : r->removed_digests) {
      std::printf("%s %s\n", f.dry_run ? "would remove" : "removed", d.c_str());
    }
    std::printf("%s: %llu artifacts kept, %llu %s (%llu bytes)\n", store.root().c_str(),
                static_cast<unsigned long long>(r->kept),
                static_cast<unsigned long long>(r->removed),
                f.dry_run ? "unreferenced" : "removed",
                static_cast<unsigned long long>(r->bytes_removed));
  }
  return kExitOk;
}

nlohmann::ordered_json CountsJson(const db::MergeCounts& c) {
  return {{"campaigns_added", c.campaigns_added}, {"runs_added", c.runs_added},
          {"runs_present", c.runs_present},       {"replays_added", c.replays_added},
          {"replays_present", c.replays_present}, {"images_added", c.images_added},
          {"boards_added", c.boards_added}, {"bisections_added", c.bisections_added}};
}

int RunMerge(const DbFlags& f) {
  db::MergeOptions options;
  options.keep_spec_versions = f.keep_spec_versions;
  options.keep_differing = f.keep_differing;
  Result<db::MergeSummary> s = db::MergeDatabases(f.output, f.inputs, options);
  if (!s.ok()) {
    std::fprintf(stderr, "ctte-lab db merge: %s\n", s.status().message().c_str());
    std::fprintf(stderr, "ctte-lab db merge: %s left as it was\n", f.output.c_str());
    return kExitUsage;
  }
  // The artifact stores beside the inputs carry over to the output's (db/artifacts.h).
  Result<uint64_t> carried = db::CarryArtifacts(f.output, f.inputs);
  if (!carried.ok()) {
    std::fprintf(stderr, "ctte-lab db merge: artifacts: %s\n", carried.status().message().c_str());
    return kExitUsage;
  }
  if (f.json) {
    nlohmann::ordered_json j{{"output", f.output}, {"created", s->output_created},
                             {"total", CountsJson(s->total)}, {"artifacts_copied", *carried}};
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

}  // namespace

Command DbCommand() {
  return Command{
    "db",
    "Database tools: `db merge OUT IN...` merges shard or lab databases (docs/ci.md); `db gc` "
    "removes artifacts no run refers to",
    [](CLI::App& sub) -> std::function<int()> {
      auto flags = std::make_shared<DbFlags>();
      sub.require_subcommand(1);
      CLI::App* merge = sub.add_subcommand(
          "merge",
          "Merge IN databases into OUT (created if absent) in one transaction: campaigns by "
          "name, spec SHA-256 and seed, runs by index; only missing runs are added, a judged run "
          "replaces an infra one, and runs whose config or judged result disagree are refused "
          "(docs/ci.md)");
      merge->add_option("OUT", flags->output, "output database (never one of the inputs)")
          ->required();
      merge->add_option("IN", flags->inputs, "input databases (read only)")->required();
      merge->add_flag("--keep-spec-versions", flags->keep_spec_versions,
                      "keep a spec changed under the same name and seed as a second campaign "
                      "row instead of refusing the indices both versions ran");
      merge->add_flag("--keep-differing", flags->keep_differing,
                      "keep the output's copy of a run whose input copy has another judged "
                      "result (status or stream), listing each, instead of refusing the merge");
      merge->add_flag("--json", flags->json, "print the merge summary as JSON");
      CLI::App* gc = sub.add_subcommand(
          "gc", "Remove from the artifact store every image and ELF no run of the database "
                "refers to (docs/db-schema.md#artifact-store)");
      gc->add_option("--db", flags->db_path, "database file (default out/ctte.db)");
      gc->add_option("--artifacts", flags->artifacts, "artifact store (default <db>.artifacts)");
      gc->add_flag("--dry-run", flags->dry_run, "list what would be removed, remove nothing");
      gc->add_flag("--json", flags->json, "print the result as JSON");
      return [flags, merge, gc]() {
        if (gc->parsed()) return RunGc(*flags);
        if (merge->parsed()) return RunMerge(*flags);
        return static_cast<int>(kExitUsage);
      };
    },
};
}

}  // namespace ctte::cli
