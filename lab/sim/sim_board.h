// SimBoard: a simulated board in this process. Its "fabric" is a Verilator image (.so, see
// rtl/ctte_image_abi.h) loaded from the board's fabric slot directory; its core is the ISS;
// its clocks come from two PllModel instances; its sink applies a seeded backpressure profile
// and feeds a capture ring. See lab/board.h for the contract.
//
// Run(plan) always starts from a freshly created and reset model (so a run does not depend on
// what came before it); registers written with WriteReg() before Run() do not carry over (the
// plan carries the encoder configuration). After Run(), ReadReg() sees the post-run model.
//
// Threading: one thread at a time. The lab runs one SimBoard per process (ctte-board), so an
// RTL $fatal or a crash takes down one board only.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "lab/board.h"
#include "lab/pll.h"
#include "lab/sim/image_loader.h"
#include "lab/sim/model_driver.h"

namespace ctte::lab {

/// Removes the folders "ctte-board-<pid>-*" in `tmp_dir` that belong to this user and whose pid
/// is no longer running (boards killed before they could remove their slot folder); never a
/// symlink, another user's folder or one of a live process. Returns how many it removed.
/// SimBoard::Create calls it before making its own temporary slot folder.
size_t RemoveStaleSlotDirs(const std::string& tmp_dir);

struct SimBoardOptions {
  /// "" = a fresh temporary directory $TMPDIR/ctte-board-<pid>-XXXXXX, removed with the board
  /// (and by the next board's Create when this one was killed first).
  std::string slot_dir;
  std::string serial;    ///< "" = "sim-<pid>-<n>"
  bool time_split = false;  ///< measure ISS and eval host time (bench only)
};

/// Host-time split of the last Run() (only with SimBoardOptions::time_split).
struct RunTimeSplit {
  double total_s = 0, iss_s = 0, eval_s = 0;
  uint64_t evals = 0;
};

class SimBoard : public Board {
 public:
  static Result<std::unique_ptr<SimBoard>> Create(const SimBoardOptions& options);
  ~SimBoard() override;

  Result<BoardIdentity> Identify() override;
  Result<DeployReceipt> Deploy(const DeployRequest& request) override;
  Result<uint64_t> SetClock(ClockDomain domain, uint64_t hz) override;
  Result<uint64_t> ReadClock(ClockDomain domain) override;
  Status WriteReg(uint32_t offset, uint32_t value) override;
  Result<uint32_t> ReadReg(uint32_t offset) override;
  Result<Capture> Run(const RunPlan& plan) override;

  const RunTimeSplit& last_split() const { return split_; }
  const std::string& slot_dir() const { return slot_dir_; }

  // Extra methods (for testing): destroy the model (closing any waveform), keep the image.
  void TEST_DropModel() { driver_.reset(); }

 private:
  explicit SimBoard(SimBoardOptions options) : options_(std::move(options)) {}
  Status NewModel(uint64_t seed);
  void Unload();
  PllModel& Pll(ClockDomain d) { return d == ClockDomain::kFabric ? fabric_pll_ : sink_pll_; }

  SimBoardOptions options_;
  std::string slot_dir_;
  bool own_slot_dir_ = false;
  uint64_t deploys_ = 0;
  PllModel fabric_pll_, sink_pll_;
  std::unique_ptr<LoadedImage> image_;
  std::unique_ptr<ModelDriver> driver_;
  std::string image_name_, image_sha256_, stored_path_;
  RunTimeSplit split_;
};

}  // namespace ctte::lab
