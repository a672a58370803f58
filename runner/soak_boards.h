// Two Board decorators the soak runner puts around its boards.
//
// SoakBoard wraps a live board for a whole soak:
//  - Deploy() happens once per image per board: the first request deploys (SHA-256 computed at
//    the target, build id read back) and keeps the receipt; a later request for the same image
//    (same expected SHA-256 and build id) first asks Identify() and reuses the receipt only when
//    the board still reports that image's SHA-256, else it deploys again. Forget() drops the
//    receipt (after a respawn). A deploy the target itself skipped (a board agent whose board
//    held the image, DeployReceipt::skipped) is counted apart (skipped_deploys()).
//  - It records what the last run saw: the receipt, the identity, the clocks as programmed and
//    read back, and the capture (TakeRecord()).
//
// PlaybackBoard answers as the board that produced a record did: the same receipt, identity,
// clocks and register reads (writes are accepted and change nothing), and Run() returns the recorded capture. The soak passes it as the twin board of a
// determinism twin, so the twin's fresh capture is judged against the stored capture of the run
// it repeats (runner/execute.h does the judging).
//
// Threading: each is used from one thread at a time.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "lab/board.h"

namespace ctte::runner {

/// What one board showed during one run.
struct BoardRunRecord {
  lab::DeployReceipt receipt;
  lab::BoardIdentity identity;
  std::map<lab::ClockDomain, uint64_t> programmed, read_back;
  /// The last value read at each register offset (the session's feature-capability and WARL
  /// read-backs, runner/board_session.h).
  std::map<uint32_t, uint32_t> registers;
  lab::Capture capture;
};

class SoakBoard : public lab::Board {
 public:
  explicit SoakBoard(lab::Board* inner) : inner_(inner) {}

  Result<lab::BoardIdentity> Identify() override;
  Result<lab::DeployReceipt> Deploy(const lab::DeployRequest& request) override;
  Result<uint64_t> SetClock(lab::ClockDomain domain, uint64_t hz) override;
  Result<uint64_t> ReadClock(lab::ClockDomain domain) override;
  Status WriteReg(uint32_t offset, uint32_t value) override { return inner_->WriteReg(offset, value); }
  Result<uint32_t> ReadReg(uint32_t offset) override;
  Result<lab::Capture> Run(const lab::RunPlan& plan) override;

  /// Forgets deployed images (the board was respawned) and the current record.
  void Forget();
  /// Starts a new record (call before each run).
  void BeginRecord() { record_ = BoardRunRecord{}; record_ok_ = false; }
  /// The record of the last run, when its capture arrived.
  std::optional<BoardRunRecord> TakeRecord();
  uint64_t deploys() const { return deploys_; }
  /// Deploys the target skipped because it held the image already (DeployReceipt::skipped).
  uint64_t skipped_deploys() const { return skipped_deploys_; }
  /// Name of the image the board holds after the last successful deploy ("" when none).
  const std::string& loaded_image() const { return loaded_image_; }

 private:
  lab::Board* inner_;
  std::map<std::string, lab::DeployReceipt> deployed_;  ///< by expected sha256 + build id
  BoardRunRecord record_;
  bool record_ok_ = false;
  uint64_t deploys_ = 0;
  uint64_t skipped_deploys_ = 0;
  std::string loaded_image_;
};

class PlaybackBoard : public lab::Board {
 public:
  explicit PlaybackBoard(BoardRunRecord record) : r_(std::move(record)) {}

  Result<lab::BoardIdentity> Identify() override { return r_.identity; }
  Result<lab::DeployReceipt> Deploy(const lab::DeployRequest& request) override;
  Result<uint64_t> SetClock(lab::ClockDomain domain, uint64_t hz) override;
  Result<uint64_t> ReadClock(lab::ClockDomain domain) override;
  /// A write changes nothing: reads answer what the recorded board answered.
  Status WriteReg(uint32_t, uint32_t) override { return Status::Ok(); }
  /// The value the recorded run last read at `offset`; NotFound when it read none there.
  Result<uint32_t> ReadReg(uint32_t offset) override;
  Result<lab::Capture> Run(const lab::RunPlan& plan) override;

 private:
  BoardRunRecord r_;
};

}  // namespace ctte::runner
