// Replay: re-execute a stored run bit for bit and record the replay (DESIGN.md section 2).
//
// Contract:
//  - The stored run's config_json is planned again (runner/plan.h); the replay is refused
//    (InvalidArgument) when the image with the stored SHA-256 is not the one available, or when
//    the stored run kept no stream digest to compare with.
//  - It runs on a fresh board child (and a second one for a determinism twin, which is judged
//    against a fresh run of the same plan), re-judges, and compares the new stream with the
//    stored one: bit-identical, or the first differing byte offset (when the stored run kept its
//    bytes; otherwise both digests and sizes are named).
//  - It records the replay as a new run row in the stored run's campaign with replay_of set to
//    the original (a replay of a replay points at the original), keeping the bytes when the
//    stream differs or the replay is red or invalid.
// Status errors are usage problems (no database, no such run, image unavailable, database
// writes); a lab failure during the replay is an infra outcome in the result.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/status.h"
#include "db/records.h"
#include "lab/remote_board.h"
#include "runner/execute.h"

namespace ctte::runner {

struct ReplayOptions {
  std::string db_path = "out/ctte.db";
  ExecuteOptions execute;        ///< image_dir, workload_dir, fst_path (the run's own plan)
  lab::RemoteBoardOptions board; ///< the ctte-board child
};

struct ReplayResult {
  int64_t stored_run_id = 0;
  std::string campaign_name;
  uint64_t index = 0, seed = 0;
  db::RunStatus stored_status = db::RunStatus::kPlanned;
  std::string stored_stream_sha256;
  RunOutcome outcome;                          ///< the replay, judged
  bool identical = false;
  std::optional<uint64_t> first_differing_byte;
  std::string comparison;                      ///< "bit-identical" or "differs: ..."
  int64_t replay_of = 0;                       ///< the original run's id
  int64_t replay_run_id = 0;                   ///< the row recorded for this replay

  /// The outcome's JSON (RunOutcome::ToJson) plus the replay's keys.
  std::string ToJson(int indent = 2) const;
};

Result<ReplayResult> ReplayRun(int64_t run_id, const ReplayOptions& options);

/// "ctte-lab replay ID --db PATH" (the --db part only when db_path is not empty).
std::string ReplayCommand(int64_t run_id, const std::string& db_path);

}  // namespace ctte::runner
