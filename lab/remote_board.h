// RemoteBoard: a Board reached through the board protocol (docs/board-protocol.md). Spawn()
// runs `ctte-board --stdio` as a supervised child process (lab/child_process.h) and talks to it
// over the child's socketpair: every request has a timeout; if the child dies (signal, exit,
// closed stream) or hangs, the request returns a Status of kind kBoardDied or kBoardTimeout
// (lab/failure.h; kRtlAssertion when the dead child's stderr shows an RTL assertion or $fatal),
// the child is reaped, and the parent carries on. Respawn() starts a fresh child. Connect()
// talks over a stream someone else set up (no child to supervise).
//
// Threading: one thread at a time.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <sys/types.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "lab/board.h"
#include "lab/child_process.h"
#include "lab/protocol.h"

namespace ctte::lab {

struct RemoteBoardOptions {
  std::string board_path;          ///< the ctte-board executable
  std::vector<std::string> args = {"--stdio"};
  int request_timeout_ms = 30'000;   ///< every request but run and deploy
  int deploy_timeout_ms = 60'000;
  int run_timeout_ms = 600'000;
  size_t stderr_tail_lines = 12;
  /// Payloads by hash (a board agent's cache, docs/board-protocol.md "Payloads and the cache"):
  /// Deploy and Run first ask "have" for the image's / workload's SHA-256 and send the bytes
  /// only when the server lacks them; the workload travels as a payload, never as a path.
  bool payload_cache = false;
  /// > 0: a request during which no frame (reply or heartbeat) arrives for this long ends as
  /// kBoardTimeout "agent silent" (the agent sends heartbeats while a request executes).
  int silence_timeout_ms = 0;
};

class RemoteBoard : public Board {
 public:
  static Result<std::unique_ptr<RemoteBoard>> Spawn(const RemoteBoardOptions& options);
  /// Talks over an already connected stream (no child to supervise; the fd is owned).
  static std::unique_ptr<RemoteBoard> Connect(int fd, const RemoteBoardOptions& options);
  /// Asks a child to exit (5 s), then reaps it.
  ~RemoteBoard() override;

  Result<BoardIdentity> Identify() override;
  Result<DeployReceipt> Deploy(const DeployRequest& request) override;
  Result<uint64_t> SetClock(ClockDomain domain, uint64_t hz) override;
  Result<uint64_t> ReadClock(ClockDomain domain) override;
  Status WriteReg(uint32_t offset, uint32_t value) override;
  Result<uint32_t> ReadReg(uint32_t offset) override;
  Result<Capture> Run(const RunPlan& plan) override;

  /// Asks the child to exit, waits for it; kills it after a grace period.
  Status Shutdown() { return ShutdownWithin(options_.request_timeout_ms); }
  /// Kills any current child and starts a fresh one (state: power-on, no image).
  Status Respawn();
  bool alive() const { return fd_ >= 0; }
  pid_t pid() const { return child_ != nullptr ? child_->pid() : -1; }

  /// Sends one heartbeat frame (never answered). Thread-safe against the request thread: a
  /// heartbeat thread may call it while a request waits for its reply.
  Status SendHeartbeat(int timeout_ms);
  /// Whether the last Deploy() was skipped by the server (it held that image already).
  bool last_deploy_skipped() const { return last_deploy_skipped_; }

  // Extra methods (for testing): send a raw op (e.g. "TEST_abort") and wait for the answer.
  Status TEST_Request(const std::string& op, int timeout_ms);
  /// The same with request fields and a payload (hostile requests in tests/net/).
  Status TEST_Request(const std::string& op, const nlohmann::json& fields,
                      std::vector<uint8_t> payload, int timeout_ms);

 private:
  struct Reply;  // the response header (parsed JSON) and payload
  explicit RemoteBoard(RemoteBoardOptions options);
  Status StartChild();
  Status ShutdownWithin(int timeout_ms);
  /// Sends {"v","id","op"} + fields, waits for the reply with the same id; a reply with
  /// "ok": false becomes its error's Status (kind included).
  Result<Reply> Call(const std::string& op, nlohmann::json fields, std::vector<uint8_t> payload,
                     int timeout_ms);
  /// Closes the stream, reaps the child; returns how it ended ("signal 6 (SIGABRT)").
  std::string Reap(bool kill_first);
  /// The Status for a child that ended `how` (kBoardDied, or kRtlAssertion by its stderr).
  Status Dead(const std::string& how);

  /// The payload's SHA-256, sent first when the server has not got it ("have", then "put").
  Result<std::string> EnsurePayload(const std::vector<uint8_t>& bytes);

  RemoteBoardOptions options_;
  std::mutex write_mu_;  ///< guards writes to fd_ and closing it (heartbeats come from another thread)
  bool last_deploy_skipped_ = false;
  int fd_ = -1;
  std::unique_ptr<ChildProcess> child_;
  std::unique_ptr<FrameReader> reader_;
  uint64_t next_id_ = 1;
  std::string death_;  ///< why the last child ended, for later calls
};

}  // namespace ctte::lab
