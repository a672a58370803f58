// BoardWrapper: a Board that forwards every call to a target Board (in the spirit of leveldb's
// EnvWrapper). Derive from it and override only the methods a decorator changes: a recording
// board, a fault-injecting board for tests (tests/lab/fault_injecting_board.h), a skewed clock.
//
// The target is not owned and must outlive the wrapper. Threading: that of the target.
#pragma once

#include "lab/board.h"

namespace ctte::lab {

class BoardWrapper : public Board {
 public:
  explicit BoardWrapper(Board* target) : target_(target) {}

  Board* target() const { return target_; }

  Result<BoardIdentity> Identify() override { return target_->Identify(); }
  Result<DeployReceipt> Deploy(const DeployRequest& request) override {
    return target_->Deploy(request);
  }
  Result<uint64_t> SetClock(ClockDomain domain, uint64_t hz) override {
    return target_->SetClock(domain, hz);
  }
  Result<uint64_t> ReadClock(ClockDomain domain) override { return target_->ReadClock(domain); }
  Status WriteReg(uint32_t offset, uint32_t value) override {
    return target_->WriteReg(offset, value);
  }
  Result<uint32_t> ReadReg(uint32_t offset) override { return target_->ReadReg(offset); }
  Result<Capture> Run(const RunPlan& plan) override { return target_->Run(plan); }

 private:
  Board* target_;
};

}  // namespace ctte::lab
