// One board session: deploy, check, clocks, closure gate, tolerance, run. The one sequence of
// board calls behind `ctte-lab run`, `capture`, `soak` and `replay`.
//
// Contract, in order (the first rule that fails ends the session):
//  1. Deploy the manifest's image; the receipt (SHA-256 computed at the target, build id read
//     back from the design) must match the manifest (lab::CheckReceipt).        else infra/kDeploy
//  1b. The design's identity registers match the manifest: ctteCaps == caps, and ctteProfile's
//     xlen field (bits 15:8) == xlen when the manifest gives one.       else kManifestMismatch
//     fmax cannot be read from a design; the manifest's fmax_mhz is trusted by the closure gate
//     (its integrity rests on the manifest's SHA-256 and build id matching the deployed image).
//  1c. The design's feature capabilities: ctteFeatureCaps (and trTeInstFeatures' read-only
//     fields) agree with the manifest's features, return_stack_depth and feature_caps, row by
//     row of runner/feature_table.h.                                     else kManifestMismatch
//  2. Identify(): a board that reports an image must report the one just deployed. else kIdentity
//  3. Program both clocks (fabric, then sink) and read each back.                   else kClock
//  4. Closure gate: the fabric clock, programmed or read back, above the image's declared
//     fmax is refused before anything runs.                                         else kClosureGate
//  5. Tolerance: a read-back that differs from what the board programmed by more than
//     clock_tolerance_ppm (or a clock programmed to 0 Hz) makes the measurement invalid.
//  5b. When the plan enables features: write them to trTeInstFeatures, read them back (WARL),
//     write 0 again; an enable that did not hold refuses the run.      else kManifestMismatch
//  6. Run the plan. An RTL assertion is a result (the run is red, the message its evidence); a
//     board death or timeout, and any other failure, is infra (kBoardDied, kBoardTimeout,
//     kBoardError). A board call that fails in steps 1-3 because the board died or hung is
//     classified kBoardDied / kBoardTimeout as well.
// Whatever was learnt before the end (receipt, identity, clock readings) is kept.
//
// Threading: uses `board` from the calling thread only.
#pragma once

#include <cstdint>
#include <string>

#include "db/records.h"
#include "lab/board.h"
#include "lab/image_manifest.h"
#include "runner/run_status.h"

namespace ctte::runner {

struct SessionOptions {
  /// A clock whose read-back differs from what the board programmed by more than this
  /// (parts per million) makes the run invalid.
  uint64_t clock_tolerance_ppm = 1000;
};

struct BoardSession {
  enum class End {
    kCaptured,      ///< `capture` holds the run's capture
    kInfra,         ///< the lab failed: `cause`, `reason`
    kInvalid,       ///< a clock read back outside tolerance: `reason`
    kRtlAssertion,  ///< the design fired an assertion: `reason` is its message
  };
  End end = End::kInfra;
  InfraCause cause = InfraCause::kNone;  ///< set when end == kInfra
  std::string reason;                    ///< "" when captured
  lab::DeployReceipt receipt;
  lab::BoardIdentity identity;
  db::ClockReading fabric, sink;
  lab::Capture capture;

  bool captured() const { return end == End::kCaptured; }
};

/// Runs the session above on `board` with the requested clocks. Never fails: the outcome of
/// every step is in the returned BoardSession.
BoardSession RunBoardSession(lab::Board& board, const lab::ImageManifest& manifest,
                             uint64_t fabric_hz, uint64_t sink_hz, const lab::RunPlan& plan,
                             const SessionOptions& options);

}  // namespace ctte::runner
