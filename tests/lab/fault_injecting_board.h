// FaultInjectingBoard: a BoardWrapper for tests (house style 4) that makes chosen calls fail the
// way real boards fail, deterministically: the Nth call (counted from 1, per method) of a chosen
// method, for `times` calls in a row (0 = that call and every later one), either
//  - fails with a given Status (e.g. RtlAssertionError(...), Status::IOError(...)),
//  - dies (BoardDiedError, kind kBoardDied, as a board child that was killed),
//  - times out (BoardTimeoutError, kind kBoardTimeout), or
//  - for Run, returns the target's capture with one byte XORed (a DUT bug seen from the runner).
// A failing call does not reach the target. Calls that no fault matches are forwarded.
//
//   FakeBoard fake;
//   FaultInjectingBoard board(&fake);
//   board.Inject({.method = BoardMethod::kRun, .nth = 2, .action = FaultAction::kDie});
//
// Threading: one thread at a time, like any Board.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lab/board_wrapper.h"

namespace ctte::lab {

enum class BoardMethod : uint8_t {
  kIdentify, kDeploy, kSetClock, kReadClock, kWriteReg, kReadReg, kRun
};
inline constexpr size_t kBoardMethods = 7;

inline const char* BoardMethodName(BoardMethod m) {
  constexpr const char* kNames[kBoardMethods] = {"identify", "deploy",   "set_clock", "read_clock",
                                                 "write_reg", "read_reg", "run"};
  return kNames[static_cast<size_t>(m)];
}

enum class FaultAction : uint8_t { kFail, kDie, kTimeout, kCorruptCapture };

struct Fault {
  BoardMethod method = BoardMethod::kRun;
  uint64_t nth = 1;    ///< the first call (1-based, of `method`) that fails
  uint64_t times = 1;  ///< how many calls in a row fail; 0 = every call from nth on
  FaultAction action = FaultAction::kFail;
  Status error = Status::Internal("TEST: injected failure");  ///< kFail: what the call returns
  /// kCorruptCapture: the byte at this offset (default: the middle one) is XORed with `mask`.
  std::optional<size_t> corrupt_offset = std::nullopt;
  uint8_t mask = 0x5a;
};

class FaultInjectingBoard : public BoardWrapper {
 public:
  using BoardWrapper::BoardWrapper;

  void Inject(Fault fault) { faults_.push_back(std::move(fault)); }
  void ClearFaults() { faults_.clear(); }
  /// Calls of `m` so far (failed ones included).
  uint64_t calls(BoardMethod m) const { return calls_[static_cast<size_t>(m)]; }
  /// Calls that a fault changed.
  uint64_t injected() const { return injected_; }

  Result<BoardIdentity> Identify() override {
    if (Status s = Enter(BoardMethod::kIdentify); !s.ok()) return s;
    return BoardWrapper::Identify();
  }
  Result<DeployReceipt> Deploy(const DeployRequest& request) override {
    if (Status s = Enter(BoardMethod::kDeploy); !s.ok()) return s;
    return BoardWrapper::Deploy(request);
  }
  Result<uint64_t> SetClock(ClockDomain domain, uint64_t hz) override {
    if (Status s = Enter(BoardMethod::kSetClock); !s.ok()) return s;
    return BoardWrapper::SetClock(domain, hz);
  }
  Result<uint64_t> ReadClock(ClockDomain domain) override {
    if (Status s = Enter(BoardMethod::kReadClock); !s.ok()) return s;
    return BoardWrapper::ReadClock(domain);
  }
  Status WriteReg(uint32_t offset, uint32_t value) override {
    if (Status s = Enter(BoardMethod::kWriteReg); !s.ok()) return s;
    return BoardWrapper::WriteReg(offset, value);
  }
  Result<uint32_t> ReadReg(uint32_t offset) override {
    if (Status s = Enter(BoardMethod::kReadReg); !s.ok()) return s;
    return BoardWrapper::ReadReg(offset);
  }
  Result<Capture> Run(const RunPlan& plan) override {
    const Fault* corrupt = nullptr;
    if (Status s = Enter(BoardMethod::kRun, &corrupt); !s.ok()) return s;
    Result<Capture> c = BoardWrapper::Run(plan);
    if (corrupt != nullptr && c.ok() && !c->bytes.empty()) {
      const size_t at = corrupt->corrupt_offset.value_or(c->bytes.size() / 2);
      if (at < c->bytes.size()) c->bytes[at] ^= corrupt->mask;
    }
    return c;
  }

 private:
  // Counts the call; the Status a failing fault returns, else OK (with *corrupt set when a
  // kCorruptCapture fault matches).
  Status Enter(BoardMethod m, const Fault** corrupt = nullptr) {
    const uint64_t n = ++calls_[static_cast<size_t>(m)];
    for (const Fault& f : faults_) {
      if (f.method != m || n < f.nth || (f.times != 0 && n >= f.nth + f.times)) continue;
      ++injected_;
      const std::string what = std::string("TEST: injected (op ") + BoardMethodName(m) + ")";
      switch (f.action) {
        case FaultAction::kFail: return f.error;
        case FaultAction::kDie: return BoardDiedError(what);
        case FaultAction::kTimeout: return BoardTimeoutError(what);
        case FaultAction::kCorruptCapture:
          if (corrupt != nullptr) *corrupt = &f;
          return Status::Ok();
      }
    }
    return Status::Ok();
  }

  std::vector<Fault> faults_;
  std::array<uint64_t, kBoardMethods> calls_{};
  uint64_t injected_ = 0;
};

}  // namespace ctte::lab
