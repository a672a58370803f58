// FakeBoard: an in-memory Board for protocol and client tests (house style 4). Registers are a
// map, clocks a PllModel, deploy hashes what it was given, and Run() returns a capture whose
// bytes are a function of the plan (so a round trip can be checked byte for byte).
#pragma once

#include <map>

#include "base/sha256.h"
#include "lab/board.h"
#include "lab/pll.h"

namespace ctte::lab {

class FakeBoard : public Board {
 public:
  static constexpr uint64_t kMaxRingBytes = uint64_t{3} << 20;  ///< reported capacity
  Result<BoardIdentity> Identify() override {
    BoardIdentity id;
    id.kind = "fake";
    id.serial = "fake-0";
    id.capabilities = {"deploy", "run"};
    id.image_sha256 = sha_;
    id.max_ring_bytes = kMaxRingBytes;
    return id;
  }
  Result<DeployReceipt> Deploy(const DeployRequest& request) override {
    if (request.bytes.empty()) return Status::InvalidArgument("fake board: no bytes");
    DeployReceipt r;
    r.sha256 = Sha256Hex(std::span<const uint8_t>(request.bytes));
    if (!request.expected_sha256.empty() && r.sha256 != request.expected_sha256) {
      return Status::InvalidArgument("image refused: SHA-256 " + r.sha256 + " differs");
    }
    r.build_id = 0x0123456789abcdefull;
    r.size = request.bytes.size();
    sha_ = r.sha256;
    return r;
  }
  Result<uint64_t> SetClock(ClockDomain d, uint64_t hz) override { return pll_[int(d)].Set(hz); }
  Result<uint64_t> ReadClock(ClockDomain d) override { return pll_[int(d)].ReadBack(); }
  Status WriteReg(uint32_t offset, uint32_t value) override {
    regs_[offset] = value;
    return Status::Ok();
  }
  Result<uint32_t> ReadReg(uint32_t offset) override {
    auto it = regs_.find(offset);
    if (it == regs_.end()) return Status::NotFound("no register at " + std::to_string(offset));
    return it->second;
  }
  Result<Capture> Run(const RunPlan& plan) override {
    if (plan.workload_elf.empty()) return Status::InvalidArgument("plan.workload_elf: empty");
    Capture c;
    for (uint64_t i = 0; i < plan.ring_bytes; ++i) {
      c.bytes.push_back(static_cast<uint8_t>(i * 7 + plan.model_seed));
    }
    c.bytes_received = c.bytes.size();
    c.counters.messages = 3;
    c.counters.bytes = static_cast<uint32_t>(c.bytes.size());
    c.te_empty = c.drained = true;
    c.fabric_cycles = plan.iss.max_instructions;
    c.core_stop = "exited";
    last_plan_ = plan;
    return c;
  }
  RunPlan last_plan_;

 private:
  std::map<uint32_t, uint32_t> regs_;
  PllModel pll_[2];
  std::string sha_;
};

}  // namespace ctte::lab
