// The board server: serves one Board over a byte stream with the board protocol
// (docs/board-protocol.md). `ctte-board --stdio` runs it on stdin/stdout; tests run it on a
// socketpair in a thread.
//
// One request at a time: read a frame, call the board, write the response frame. A request
// whose JSON is bad or whose op is unknown gets an error response and the server goes on; a
// malformed frame (bad magic, impossible lengths, truncation) gets one error response with
// id 0 and ends the session, because the stream can no longer be trusted. A "heartbeat"
// request (a client's sign of life, lab/net/net_board.h) is read and never answered.
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>

#include "base/status.h"
#include "lab/board.h"
#include "lab/payload_cache.h"

namespace ctte::lab {

/// What a server keeps across sessions (the board agent, lab/net/agent.h): the payload cache
/// and the receipt of the image the board holds, so a deploy of that image again is skipped.
struct ServerState {
  PayloadCache* cache = nullptr;  ///< nullptr: the "have"/"put" ops and payload names refused
  std::optional<DeployReceipt> held;  ///< receipt of the image the board holds, if known
  std::function<void(const std::string&)> log;  ///< one line per cache miss, put, deploy skip
};

struct ServerOptions {
  /// Accept the TEST_abort / TEST_hang / TEST_exit requests (tests of child supervision).
  bool test_ops = false;
  /// Cache and deploy memory (the agent); nullptr: none (`--stdio`, `--unix`).
  ServerState* state = nullptr;
  /// > 0: while a request executes, a {"heartbeat": true} frame with its id goes to the client
  /// every heartbeat_ms (the client tells a slow run from a dead agent). 0: none.
  int heartbeat_ms = 0;
  /// The agent (`ctte-board --listen`): no path a client sends is used. A deploy's image comes
  /// as a payload named by payload_sha256, a run's workload as workload_sha256; a deploy
  /// `path`, a non-empty `plan.workload_elf` or `plan.fst_path`, a run without workload_sha256
  /// and the TEST_* ops are refused (InvalidArgument) before the board is called.
  bool payload_only = false;
  /// When set: the SHA-256 digests of the only images deploy may hand to the board (a simulated
  /// board dlopens its image). Anything else is refused before the board sees it.
  std::optional<std::set<std::string>> image_allowlist;
  /// When set (the agent): the most payload bytes a request may carry, checked from its header
  /// before any payload byte is read; a request over its cap ends the session with one error
  /// response (id 0) naming the op, the bytes and the cap. Only deploy (an image) and put (a
  /// payload for the cache) carry payloads; every other op's cap is 0.
  struct PayloadCaps {
    uint64_t deploy = 0;
    uint64_t put = 0;
  };
  std::optional<PayloadCaps> payload_caps;
  /// > 0 (the agent): the most requests (frames, heartbeats included) a session is served a
  /// second, as a token bucket holding one second's worth. A request beyond it waits for the
  /// bucket (the client is slowed, not failed; TCP pushes back on a flood), and the agent logs
  /// one line a second per throttled session. 0: no limit.
  int max_requests_per_second = 0;
  /// Called with the throttle's log line (the agent names the session); unset: the state's log.
  std::function<void(const std::string&)> on_throttle;
  /// Called with "OP (id N)" for every request read, OP quoted and cut (base/text.h
  /// QuoteForMessage): the agent logs it with its peer.
  std::function<void(const std::string&)> on_request;
};

/// Serves until a shutdown request (Ok, *shutdown set when non-null), EOF between frames (Ok),
/// or a malformed frame / write failure (that Status).
Status ServeBoard(Board& board, int in_fd, int out_fd, const ServerOptions& options,
                  bool* shutdown = nullptr);

}  // namespace ctte::lab
