// ctte-board: serves one board over the board protocol (docs/board-protocol.md): a simulated
// board (--board sim, the default) or a Zynq UltraScale+ under Linux (--board zynq, lab/zynq/,
// docs/zynq-board.md; --sysroot DIR prefixes every path it touches).
//   ctte-board --stdio             protocol on stdin/stdout (how RemoteBoard runs it)
//   ctte-board --unix PATH         listen on a Unix socket, one client at a time
//   ctte-board --listen tcp:HOST:PORT --cert F --key F --ca F --allow RUNNER[,RUNNER]
//              [--image-dir DIR]   a TLS board agent (mutual TLS, lab/net/agent.h), one client
//                                  at a time; peers that fail the handshake or are not allowed
//                                  are dropped and logged. Payloads only: no client path is used;
//                                  a simulated board loads only the images in --image-dir.
// Exit: 0 after shutdown or end of stream, 2 on usage, setup or protocol errors.
#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "base/sha256.h"
#include "base/version.h"
#include "lab/corrupting_board.h"
#include "lab/board_server.h"
#include "lab/net/agent.h"
#include "lab/sim/sim_board.h"
#include "lab/zynq/zynq_board.h"

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
  // Only an old socket is replaced: a regular file, symlink, FIFO, device or folder at PATH is
  // refused and left alone (the base/output.h rule, docs/board-protocol.md).
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) {
      const char* what = S_ISREG(st.st_mode)   ? "a regular file"
                         : S_ISLNK(st.st_mode) ? "a symbolic link"
                         : S_ISDIR(st.st_mode) ? "a directory"
                                               : "not a socket";
      std::fprintf(stderr, "ctte-board: --unix %s: %s is there; refusing to replace it\n",
                   path.c_str(), what);
      ::close(ls);
      return 2;
    }
    ::unlink(path.c_str());
  }
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

// "tcp:HOST:PORT" -> host, port.
bool ParseListen(const std::string& spec, std::string* host, uint16_t* port) {
  if (spec.rfind("tcp:", 0) != 0) return false;
  const std::string rest = spec.substr(4);
  const size_t colon = rest.rfind(':');
  if (colon == std::string::npos || colon == 0) return false;
  *host = rest.substr(0, colon);
  if (host->size() > 2 && host->front() == '[' && host->back() == ']') {
    *host = host->substr(1, host->size() - 2);
  }
  const std::string p = rest.substr(colon + 1);
  if (p.empty() || p.size() > 5 || p.find_first_not_of("0123456789") != std::string::npos) {
    return false;
  }
  const unsigned long v = std::stoul(p);
  if (v > 65535) return false;
  *port = static_cast<uint16_t>(v);
  return true;
}

// Names from "a,b" and from a file (one a line, '#' comments); false with *err on a bad name.
bool AllowList(const std::string& list, const std::string& file, std::vector<std::string>* out,
               std::string* err) {
  std::vector<std::string> raw;
  size_t start = 0;
  while (start <= list.size() && !list.empty()) {
    const size_t comma = list.find(',', start);
    raw.push_back(list.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (!file.empty()) {
    std::ifstream in(file);
    if (!in) {
      *err = "--allow-file " + file + ": cannot read it";
      return false;
    }
    std::string line;
    while (std::getline(in, line)) {
      line = line.substr(0, line.find('#'));
      const size_t b = line.find_first_not_of(" \t\r"), e = line.find_last_not_of(" \t\r");
      if (b != std::string::npos) raw.push_back(line.substr(b, e - b + 1));
    }
  }
  for (const std::string& n : raw) {
    const bool ok = !n.empty() && n.size() <= 63 &&
                    n.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                        "0123456789-.") == std::string::npos;
    if (!ok) {
      *err = "allowed runner name '" + n + "': use 1..63 letters, digits, '-' and '.'";
      return false;
    }
    out->push_back(n);
  }
  return true;
}

// The SHA-256 of every regular file directly in dir (the images this agent may load).
bool ImageDigests(const std::string& dir, std::set<std::string>* out, std::string* err) {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (!e.is_regular_file()) continue;
    ctte::Result<std::string> sha = ctte::Sha256File(e.path().string());
    if (!sha.ok()) {
      *err = sha.status().ToString();
      return false;
    }
    out->insert(*sha);
  }
  if (ec) {
    *err = "--image-dir " + dir + ": " + ec.message();
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ctte-board: serves one board (simulated, or a Zynq UltraScale+) over the board protocol"};
  app.set_version_flag("--version", std::string("ctte-board ") + ctte::ToolVersion() +
                                        "\npackage ctte-lab " + ctte::PackageVersion());
  bool stdio = false;
  std::string unix_path, slot_dir, serial;
  ctte::lab::ServerOptions server;
  app.add_flag("--stdio", stdio, "serve on stdin/stdout");
  app.add_option("--unix", unix_path, "serve on a Unix socket at PATH");
  app.add_option("--slot-dir", slot_dir, "fabric slot directory (default: a temporary one)");
  app.add_option("--serial", serial, "board serial (default: sim-<pid>-0)");
  std::string board_kind = "sim";
  ctte::lab::zynq::ZynqBoardOptions zynq;
  app.add_option("--board", board_kind, "sim (default) or zynq")
      ->check(CLI::IsMember({"sim", "zynq"}));
  app.add_option("--sysroot", zynq.sysroot, "zynq: root prefix of every path (default /)");
  app.add_option("--uio-name", zynq.uio_name, "zynq: the design's UIO device name (default ctte_harness)");
  app.add_option("--udmabuf", zynq.udmabuf, "zynq: the capture ring's u-dma-buf (default udmabuf0)");
  app.add_flag("--emulated-fabric", zynq.emulated_fabric,
               "zynq: the fabric emulator serves the registers (tests only)");
  app.add_flag("--test-ops", server.test_ops, "accept TEST_* requests (supervision tests)");
  double corrupt_captures = -1;
  app.add_option("--test-corrupt-captures", corrupt_captures,
                 "TEST ONLY: flip one byte in this fraction (0..1) of the captures, a board with "
                 "a broken capture path (triage tests, docs/lab.md); refused with --board zynq")
      ->check(CLI::Range(0.0, 1.0));
  std::string listen;
  ctte::lab::net::AgentOptions agent;
  int handshake_s = 10, idle_s = 30;
  std::string log_level = "info";
  app.add_option("--listen", listen, "serve as a TLS board agent on tcp:HOST:PORT");
  app.add_option("--cert", agent.tls.cert, "agent certificate (PEM, from ctte-lab lab issue)");
  app.add_option("--key", agent.tls.key, "agent private key (PEM)");
  app.add_option("--ca", agent.tls.ca, "lab CA certificate (PEM); clients must chain to it");
  app.add_option("--handshake-timeout", handshake_s,
                 "seconds a peer has for the TLS handshake (1..600, default 10)")
      ->check(CLI::Range(1, 600));
  app.add_option("--lease-timeout", idle_s,
                 "seconds without a request or heartbeat from the client before its lease expires "
                 "(1..86400, default 30)")
      ->check(CLI::Range(1, 86400));
  app.add_option("--max-handshakes", agent.max_handshakes,
                 "TLS handshakes in flight at once; a connection beyond is closed unheard "
                 "(1..1024, default 64)")
      ->check(CLI::Range(1, ctte::lab::net::kMaxHandshakesLimit));
  app.add_option("--max-handshakes-per-address", agent.max_handshakes_per_address,
                 "TLS handshakes in flight from one address (1..--max-handshakes, default 8)")
      ->check(CLI::Range(1, ctte::lab::net::kMaxHandshakesLimit));
  std::string allow, allow_file, image_dir;
  app.add_option("--allow", allow, "runner certificate names this agent serves (comma-separated)");
  app.add_option("--allow-file", allow_file, "file of runner names this agent serves, one a line");
  app.add_option("--crl", agent.tls.crl,
                 "lab CA revocation list (PEM; default: crl.pem beside --ca when present)");
  app.add_option("--image-dir", image_dir,
                 "sim: the only images this agent loads are the files in DIR (by SHA-256)");
  app.add_option("--cache-dir", agent.cache_dir,
                 "payload cache folder (images, workloads by SHA-256; default: a temporary one)");
  app.add_option("--max-connection-rate", agent.max_connections_per_second,
                 "new connections a second from one address; more are closed unheard "
                 "(1..10000, default 20)")
      ->check(CLI::Range(1, ctte::lab::net::kMaxConnectionRateLimit));
  app.add_option("--max-request-rate", agent.max_requests_per_second,
                 "requests a second one session is served; more wait (1..1000000, default 1000)")
      ->check(CLI::Range(1, ctte::lab::net::kMaxRequestRateLimit));
  app.add_option("--cache-bytes", agent.cache_bytes,
                 "payload cache budget; storing evicts the least recently used payloads "
                 "(1M..1T, suffixes K M G T; default 4G)")
      ->transform(CLI::AsSizeValue(false))
      ->check(CLI::Range(uint64_t{1} << 20, uint64_t{1} << 40));
  app.add_option("--max-image-bytes", agent.max_image_bytes,
                 "largest image a deploy may send (1..512M and at most --cache-bytes; default 256M)")
      ->transform(CLI::AsSizeValue(false));
  app.add_option("--max-put-bytes", agent.max_put_bytes,
                 "largest payload (a workload ELF) a put may send (1..512M and at most "
                 "--cache-bytes; default 64M)")
      ->transform(CLI::AsSizeValue(false));
  app.add_option("--log-level", log_level, "agent log level: debug, info, warn (default info)")
      ->check(CLI::IsMember({"debug", "info", "warn"}));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  if (static_cast<int>(stdio) + static_cast<int>(!unix_path.empty()) +
          static_cast<int>(!listen.empty()) != 1) {
    std::fprintf(stderr,
                 "ctte-board: give exactly one of --stdio, --unix PATH and --listen tcp:HOST:PORT\n");
    return 2;
  }
  if (!listen.empty()) {
    if (!ParseListen(listen, &agent.host, &agent.port)) {
      std::fprintf(stderr, "ctte-board: --listen %s: expected tcp:HOST:PORT\n", listen.c_str());
      return 2;
    }
    if (agent.tls.cert.empty() || agent.tls.key.empty() || agent.tls.ca.empty()) {
      std::fprintf(stderr, "ctte-board: --listen needs --cert, --key and --ca\n");
      return 2;
    }
    if (server.test_ops) {
      std::fprintf(stderr, "ctte-board: --test-ops is refused with --listen (any client could "
                           "end the agent)\n");
      return 2;
    }
    std::string err;
    if (!AllowList(allow, allow_file, &agent.allow, &err)) {
      std::fprintf(stderr, "ctte-board: %s\n", err.c_str());
      return 2;
    }
    if (agent.allow.empty()) {
      std::fprintf(stderr, "ctte-board: --listen needs --allow RUNNER[,RUNNER...] or "
                           "--allow-file FILE: the runners this agent serves\n");
      return 2;
    }
    if (board_kind == "sim" && image_dir.empty()) {
      std::fprintf(stderr, "ctte-board: --listen with a simulated board needs --image-dir DIR: "
                           "it loads (dlopens) only the images there\n");
      return 2;
    }
    if (!image_dir.empty()) {
      std::set<std::string> digests;
      if (!ImageDigests(image_dir, &digests, &err)) {
        std::fprintf(stderr, "ctte-board: %s\n", err.c_str());
        return 2;
      }
      server.image_allowlist = std::move(digests);
    }
    // Checked ranges above: at most 86400 * 1000, well inside an int.
    agent.handshake_timeout_ms = handshake_s * 1000;
    agent.lease_timeout_ms = idle_s * 1000;
    agent.server = server;
    // The agent's log (spdlog on stderr): peers by certificate name and address.
    auto logger = spdlog::stderr_logger_mt("ctte-board");
    logger->set_pattern("ctte-board: %Y-%m-%dT%H:%M:%S.%eZ %l %v", spdlog::pattern_time_type::utc);
    logger->set_level(spdlog::level::from_str(log_level));
    logger->flush_on(spdlog::level::debug);
    agent.log = [logger](ctte::lab::net::LogLevel level, const std::string& line) {
      switch (level) {
        case ctte::lab::net::LogLevel::kDebug: logger->debug("{}", line); break;
        case ctte::lab::net::LogLevel::kInfo: logger->info("{}", line); break;
        case ctte::lab::net::LogLevel::kWarn: logger->warn("{}", line); break;
      }
    };
  }
  std::unique_ptr<ctte::lab::Board> owned;
  if (board_kind == "zynq") {
    zynq.serial = serial;
    auto z = ctte::lab::zynq::ZynqBoard::Create(zynq);
    if (!z.ok()) {
      std::fprintf(stderr, "ctte-board: %s\n", z.status().ToString().c_str());
      return 2;
    }
    owned = std::move(*z);
  } else {
    ctte::lab::SimBoardOptions sim;
    sim.slot_dir = slot_dir;
    sim.serial = serial;
    auto b = ctte::lab::SimBoard::Create(sim);
    if (!b.ok()) {
      std::fprintf(stderr, "ctte-board: %s\n", b.status().ToString().c_str());
      return 2;
    }
    owned = std::move(*b);
  }
  std::unique_ptr<ctte::lab::CorruptingBoard> corrupting;
  if (corrupt_captures >= 0) {
    if (board_kind != "sim") {
      std::fprintf(stderr, "ctte-board: --test-corrupt-captures is refused with --board %s: "
                           "a real board is never faked\n", board_kind.c_str());
      return 2;
    }
    corrupting = std::make_unique<ctte::lab::CorruptingBoard>(owned.get(), corrupt_captures);
    std::fprintf(stderr, "ctte-board: TEST: this board corrupts %g of its captures "
                         "(--test-corrupt-captures; for tests only)\n", corrupt_captures);
  }
  ctte::lab::Board* const board =
      corrupting ? static_cast<ctte::lab::Board*>(corrupting.get()) : owned.get();
  if (!unix_path.empty()) return ServeUnix(*board, unix_path, server);
  if (!listen.empty()) {
    // As with --stdio, a model's $display must not reach anything that could be a protocol.
    ::dup2(2, 1);
    auto a = ctte::lab::net::Agent::Listen(*board, agent);
    if (!a.ok()) {
      std::fprintf(stderr, "ctte-board: %s\n", a.status().ToString().c_str());
      return 2;
    }
    // The port actually bound (for --listen tcp:HOST:0), on its own line for scripts.
    std::fprintf(stderr, "ctte-board: port %u\n", static_cast<unsigned>((*a)->port()));
    const ctte::Status s = (*a)->Serve();
    if (!s.ok()) {
      std::fprintf(stderr, "ctte-board: %s\n", s.ToString().c_str());
      return 2;
    }
    return 0;
  }
  // The protocol owns the real stdout; anything else printing to stdout (a model's $display)
  // lands on stderr instead of corrupting frames.
  const int proto_out = ::dup(1);
  ::dup2(2, 1);
  const ctte::Status s = ctte::lab::ServeBoard(*board, 0, proto_out, server, nullptr);
  if (!s.ok()) {
    std::fprintf(stderr, "ctte-board: %s\n", s.ToString().c_str());
    return 2;
  }
  return 0;
}
