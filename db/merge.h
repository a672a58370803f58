// Merging lab databases: the shards of a campaign run on several lab runners (docs/ci.md), or
// the histories of several labs, into one file whose campaign rows hold all their indices.
//
// Contract (MergeDatabases):
//  - Identity. A campaign is (name, spec SHA-256, seed), the schema's campaign key; an original
//    run is (campaign, index). Images are keyed by SHA-256 and boards by (kind, serial); run rows
//    are re-pointed at the output's board ids, and replays at the output's ids of the runs they
//    replay. Verdicts and stored stream bytes travel with their run.
//  - Missing only. An original run the output already has finished is left alone; a planned one
//    is completed in place by a finished input run, and an infra one is replaced in place (its
//    verdicts, stream and attempts those of the input) by a judged input run (green, red or
//    invalid: a shard re-run with --retry-infra); an infra input run never replaces a judged one
//    and is no differing result. Two judged copies with different results (status or stream
//    digest) genuinely disagree: the merge is refused (naming campaign, index, both files and
//    both results) unless keep_differing, which keeps the output's and lists them. A bisection
//    or triage (bisections, with its legs) of a run already present is carried over unless the
//    output holds one of the same kind and creation time for it. A replay already present (same campaign,
//    index, replayed run, start time, wall time, status, digest and config) is not added again.
//    So merging an input twice, or into an output that holds part of the campaign, adds only
//    what is missing. A campaign row keeps the earliest created_at of its copies.
//  - Conflicts are refused, naming the campaign, the index and both files: the same campaign and
//    index with a different run seed or config_json (shards built from different drawing code),
//    or, unless keep_spec_versions, the same campaign name and seed at the same index under a
//    different spec SHA-256 (shards run from different spec files).
//  - Safety. Inputs are opened read-only, must be at this build's schema version and pass
//    PRAGMA integrity_check and foreign_key_check; the output is checked before and, inside the
//    transaction, after the merge. Everything is one transaction on the output: any failure
//    leaves it as it was (an output that did not exist is removed again). The output may not be
//    one of the inputs.
// Threading: no shared state; other processes may read the output meanwhile (WAL).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace ctte::db {

struct MergeOptions {
  /// Merge a campaign whose spec changed under the same name and seed as a second campaign row
  /// (the schema allows it) instead of refusing the indices both versions hold.
  bool keep_spec_versions = false;
  /// Keep the output's copy of a run whose input copy has another judged result (status or
  /// stream digest), listing it in differing_results, instead of refusing the merge.
  bool keep_differing = false;
  int busy_timeout_ms = 10'000;
};

struct MergeCounts {
  uint64_t campaigns_added = 0;
  uint64_t runs_added = 0;      ///< original runs new to the output (or completing a planned or
                                ///< replacing an infra one)
  uint64_t runs_present = 0;    ///< original runs the output already had
  uint64_t replays_added = 0;
  uint64_t replays_present = 0;
  uint64_t images_added = 0;
  uint64_t boards_added = 0;
  uint64_t bisections_added = 0;  ///< bisections carried for runs already present
};

struct MergeInputSummary {
  std::string path;
  MergeCounts counts;
  /// With keep_differing: runs present in both with a different judged result (status or
  /// stream digest), the output's kept. Each names campaign, index and both files.
  std::vector<std::string> differing_results;
};

struct MergeSummary {
  std::vector<MergeInputSummary> inputs;
  MergeCounts total;
  bool output_created = false;
};

/// Merges `inputs` into `output` (created when absent) in one transaction; see the contract.
Result<MergeSummary> MergeDatabases(const std::string& output,
                                    const std::vector<std::string>& inputs,
                                    const MergeOptions& options = MergeOptions{});

}  // namespace ctte::db
