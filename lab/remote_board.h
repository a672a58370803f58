// RemoteBoard: a Board reached through the board protocol. Spawn() runs `ctte-board --stdio`
// as a child process (fork/exec; a socketpair carries the protocol, a pipe carries stderr) and
// supervises it: every request has a timeout; if the child dies (signal, exit, closed stream)
// or hangs, the request returns a Status that ClassifyFailure() reports as kBoardDied or
// kBoardTimeout (kRtlAssertion when the child's stderr shows an RTL assertion or $fatal), the
// child is reaped, and the parent carries on. Respawn() starts a fresh child.
//
// Threading: one thread at a time (a background thread only collects the child's stderr).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <sys/types.h>

#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "lab/board.h"
#include "lab/protocol.h"

namespace ctte::lab {

struct RemoteBoardOptions {
  std::string board_path;          ///< the ctte-board executable
  std::vector<std::string> args = {"--stdio"};
  int request_timeout_ms = 30'000;   ///< every request but run and deploy
  int deploy_timeout_ms = 60'000;
  int run_timeout_ms = 600'000;
  size_t stderr_tail_lines = 12;
};

class RemoteBoard : public Board {
 public:
  static Result<std::unique_ptr<RemoteBoard>> Spawn(const RemoteBoardOptions& options);
  /// Talks over an already connected stream (no child to supervise; the fd is owned).
  static std::unique_ptr<RemoteBoard> Connect(int fd, const RemoteBoardOptions& options);
  ~RemoteBoard() override;

  Result<BoardIdentity> Identify() override;
  Result<DeployReceipt> Deploy(const DeployRequest& request) override;
  Result<uint64_t> SetClock(ClockDomain domain, uint64_t hz) override;
  Result<uint64_t> ReadClock(ClockDomain domain) override;
  Status WriteReg(uint32_t offset, uint32_t value) override;
  Result<uint32_t> ReadReg(uint32_t offset) override;
  Result<Capture> Run(const RunPlan& plan) override;

  /// Asks the child to exit, waits for it; kills it after a grace period.
  Status Shutdown();
  /// Kills any current child and starts a fresh one (state: power-on, no image).
  Status Respawn();
  bool alive() const { return fd_ >= 0; }
  pid_t pid() const { return pid_; }

  // Extra methods (for testing): send a raw op (e.g. "TEST_abort") and wait for the answer.
  Status TEST_Request(const std::string& op, int timeout_ms);

 private:
  struct Reply {
    std::string header;  // JSON text
    std::vector<uint8_t> payload;
  };
  explicit RemoteBoard(RemoteBoardOptions options) : options_(std::move(options)) {}
  Status StartChild();
  /// Sends {"v","id","op"} + fields, waits for the reply with the same id.
  Result<Reply> Call(const std::string& op, nlohmann::json fields, std::vector<uint8_t> payload,
                     int timeout_ms);
  /// Closes the stream, reaps the child; returns how it ended ("signal 6 (SIGABRT)").
  std::string Reap(bool kill_first);
  std::string StderrTail();
  Status Dead(const std::string& how);

  RemoteBoardOptions options_;
  int fd_ = -1;
  pid_t pid_ = -1;
  int stderr_fd_ = -1;
  std::unique_ptr<FrameReader> reader_;
  uint64_t next_id_ = 1;
  std::string death_;  ///< why the last child ended, for later calls
  std::thread stderr_thread_;
  std::mutex stderr_mu_;
  std::string stderr_buf_;  ///< the last few KiB of the child's stderr
};

}  // namespace ctte::lab
