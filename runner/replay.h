// Replay: re-execute a stored run bit for bit and record the replay (DESIGN.md section 2).
//
// Contract:
//  - The stored run's config_json is planned again (runner/plan.h); the replay is refused
//    (InvalidArgument) when the image with the stored SHA-256 is not the one available, or when
//    the stored run kept no stream digest to compare with.
//  - Outcomes: "bit-identical" (same digest); "decode-equivalent" (the bytes differ, the decode
//    agrees: DecodeEquivalence); "differs" (the first differing byte offset, or both digests).
//  - It runs on a fresh board child (and a second one for a determinism twin, which is judged
//    against a fresh run of the same plan), or on a lab board (ReplayOptions::boards): the run's
//    own by default, refused (NotFound) when no inventory board reports its identity; `board`
//    names the board used, re-judges, and compares the new stream with the
//    stored one: bit-identical, or the first differing byte offset (when the stored run kept its
//    bytes; otherwise both digests and sizes are named).
//  - When the lab fails during the replay (the outcome is infra: a missing or modified image
//    file, a board death, an unusable waveform path...), it *could not replay*: `replayed` is
//    false, `comparison` says "could not replay (infra, CAUSE): reason", nothing is compared and
//    nothing is stored (it is not evidence of non-determinism).
//  - Content pins (docs/db-schema.md): the ELF replayed must have the SHA-256 the run stored.
//    A generated program is regenerated first and its digest checked; a user or built-in ELF is
//    read from the file the run pinned or workload_dir. When the build tree's file (or image)
//    differs or is gone, the copy in the artifact store with the run's digest is used; with none
//    there the replay is refused (InvalidArgument) naming the file and both digests.
//  - A stored infra run has no stream to compare with: its replay is refused with the reason.
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
#include "runner/board_source.h"
#include "runner/execute.h"

namespace ctte::runner {

struct ReplayOptions {
  std::string db_path = "out/ctte.db";
  ExecuteOptions execute;        ///< image_dir, workload_dir, fst_path (the run's own plan)
  /// The artifact store to fall back on when the build tree lacks the run's image or ELF:
  /// "" = "<db_path>.artifacts"; "none" = do not look.
  std::string artifacts_dir;
  /// The boards (runner/board_source.h): a local ctte-board child (a second one for a twin),
  /// or lab boards. On the lab the replay runs on the run's own board, found by its stored
  /// identity (kind and serial; the stored name is tried first), unless `board_chosen` (the
  /// source is then the one board to use, `--board-name`); a determinism twin runs on the
  /// same board after the first run.
  BoardSource boards;
  bool board_chosen = false;
};

struct ReplayResult {
  int64_t stored_run_id = 0;
  std::string campaign_name;
  uint64_t index = 0, seed = 0;
  db::RunStatus stored_status = db::RunStatus::kPlanned;
  std::string stored_stream_sha256;
  RunOutcome outcome;                          ///< the replay, judged
  bool replayed = false;                       ///< false: could not replay (outcome is infra)
  bool identical = false;
  /// The bytes differ but the decode agrees (DecodeEquivalence): a real board that cannot
  /// reproduce bytes (drop positions depend on clock-domain phases) reproduced the run.
  bool decode_equivalent = false;
  std::optional<uint64_t> first_differing_byte;
  std::string comparison;                      ///< "bit-identical" or "differs: ..."
  int64_t replay_of = 0;                       ///< the original run's id
  int64_t replay_run_id = 0;                   ///< the row recorded for this replay (0: none)
  std::string workload_sha256;                 ///< the ELF replayed (equal to the run's pin)
  std::string image_source = "build tree";     ///< or "artifact store"
  std::string workload_source = "build tree";  ///< or "artifact store", "regenerated"
  std::string board_name;                      ///< the board it ran on (BoardSource::Name)

  /// The outcome's JSON (RunOutcome::ToJson) plus the replay's keys.
  std::string ToJson(int indent = 2) const;
};

Result<ReplayResult> ReplayRun(int64_t run_id, const ReplayOptions& options);

/// Whether a replay whose stream bytes differ from the stored run's still decodes the same
/// (docs/soak.md, "Replay outcomes"): decode_integrity passed on both (each run's decoded PCs
/// equal the reference PCs of the one configuration, so they equal each other), the same
/// decoded and announced-lost instruction counts, and the same announced-loss episodes (their
/// number, and each stored one's recovered, closed_window and instructions_missing; byte offsets
/// may differ). "" when decode-equivalent, else the first difference.
/// `stored_metrics_json`: the stored run's runs.metrics_json.
std::string DecodeEquivalence(const std::string& stored_metrics_json, bool stored_decode_passed,
                              const RunOutcome& replay);

/// A simulated board (identity kind "sim" or "...:sim") reproduces bytes: there a
/// decode-equivalent replay is still a difference (exit 1); on a real board it is a
/// reproduction (exit 0).
bool IsSimulatedBoardKind(const std::string& kind);

/// "ctte-lab replay ID --db PATH" (the --db part only when db_path is not empty).
std::string ReplayCommand(int64_t run_id, const std::string& db_path);

}  // namespace ctte::runner
