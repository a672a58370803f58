// The board server: serves one Board over a byte stream with the board protocol
// (docs/board-protocol.md). `ctte-board --stdio` runs it on stdin/stdout; tests run it on a
// socketpair in a thread.
//
// One request at a time: read a frame, call the board, write the response frame. A request
// whose JSON is bad or whose op is unknown gets an error response and the server goes on; a
// malformed frame (bad magic, impossible lengths, truncation) gets one error response with
// id 0 and ends the session, because the stream can no longer be trusted.
#pragma once

#include "base/status.h"
#include "lab/board.h"

namespace ctte::lab {

struct ServerOptions {
  /// Accept the TEST_abort / TEST_hang / TEST_exit requests (tests of child supervision).
  bool test_ops = false;
};

/// Serves until a shutdown request (Ok, *shutdown set when non-null), EOF between frames (Ok),
/// or a malformed frame / write failure (that Status).
Status ServeBoard(Board& board, int in_fd, int out_fd, const ServerOptions& options,
                  bool* shutdown = nullptr);

}  // namespace ctte::lab
