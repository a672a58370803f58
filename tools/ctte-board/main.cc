// ctte-board: serves one simulated board over the board protocol (docs/board-protocol.md).
//   ctte-board --stdio             protocol on stdin/stdout (how RemoteBoard runs it)
//   ctte-board --unix PATH         listen on a Unix socket, one client at a time
// Exit: 0 after shutdown or end of stream, 2 on usage, setup or protocol errors.
#include <CLI/CLI.hpp>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "lab/board_server.h"
#include "lab/sim/sim_board.h"

#ifndef CTTE_VERSION
#define CTTE_VERSION "unknown"
#endif

namespace {

int ServeUnix(ctte::lab::Board& board, const std::string& path,
              const ctte::lab::ServerOptions& options) {
  const int ls = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (ls < 0 || path.size() >= sizeof addr.sun_path) {
    std::fprintf(stderr, "ctte-board: cannot create socket %s\n", path.c_str());
    return 2;
  }
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  ::unlink(path.c_str());
  if (::bind(ls, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(ls, 1) != 0) {
    std::fprintf(stderr, "ctte-board: %s: %s\n", path.c_str(), std::strerror(errno));
    return 2;
  }
  std::fprintf(stderr, "ctte-board: listening on %s\n", path.c_str());
  for (;;) {
    const int c = ::accept4(ls, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) {
      if (errno == EINTR) continue;
      std::fprintf(stderr, "ctte-board: accept: %s\n", std::strerror(errno));
      return 2;
    }
    bool stop = false;
    ctte::Status s = ctte::lab::ServeBoard(board, c, c, options, &stop);
    ::close(c);
    if (!s.ok()) std::fprintf(stderr, "ctte-board: client: %s\n", s.ToString().c_str());
    if (stop) break;
  }
  ::close(ls);
  ::unlink(path.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ctte-board: serves one simulated board over the board protocol"};
  app.set_version_flag("--version", std::string("ctte-board ") + CTTE_VERSION);
  bool stdio = false;
  std::string unix_path, slot_dir, serial;
  ctte::lab::ServerOptions server;
  app.add_flag("--stdio", stdio, "serve on stdin/stdout");
  app.add_option("--unix", unix_path, "serve on a Unix socket at PATH");
  app.add_option("--slot-dir", slot_dir, "fabric slot directory (default: a temporary one)");
  app.add_option("--serial", serial, "board serial (default: sim-<pid>-0)");
  app.add_flag("--test-ops", server.test_ops, "accept TEST_* requests (supervision tests)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  if (stdio == !unix_path.empty()) {
    std::fprintf(stderr, "ctte-board: give exactly one of --stdio and --unix PATH\n");
    return 2;
  }
  ctte::lab::SimBoardOptions sim;
  sim.slot_dir = slot_dir;
  sim.serial = serial;
  auto board = ctte::lab::SimBoard::Create(sim);
  if (!board.ok()) {
    std::fprintf(stderr, "ctte-board: %s\n", board.status().ToString().c_str());
    return 2;
  }
  if (!unix_path.empty()) return ServeUnix(**board, unix_path, server);
  // The protocol owns the real stdout; anything else printing to stdout (a model's $display)
  // lands on stderr instead of corrupting frames.
  const int proto_out = ::dup(1);
  ::dup2(2, 1);
  const ctte::Status s = ctte::lab::ServeBoard(**board, 0, proto_out, server, nullptr);
  if (!s.ok()) {
    std::fprintf(stderr, "ctte-board: %s\n", s.ToString().c_str());
    return 2;
  }
  return 0;
}
