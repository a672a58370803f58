// The board agent (docs/lab.md, docs/board-protocol.md "TCP and TLS"): serves one Board to one
// TLS client at a time. Mutual TLS: the client must present a certificate signed by the lab CA
// (TLS 1.2+). After the handshake the decrypted bytes are bridged to ServeBoard over a
// socketpair (lab/board_server.h), so framing, frame limits and the ops live in one place. A
// peer that fails the handshake (plain TCP, garbage, no certificate, another CA, a revoked or
// expired certificate, a certificate without clientAuth, i.e. not a runner's) or says nothing
// within the handshake timeout is dropped and logged with its address; so is a runner whose
// name is not in the agent's allowlist. The agent keeps serving.
//
// Leases: the client that holds the session holds the board's lease. Another client that
// completes the handshake meanwhile gets one error response (id 0, code Unavailable) "busy:
// leased by NAME since T" and is closed: within 200 ms while the holder's client is connected,
// or after waiting up to 2 s for the lease while the holder's session ends (a runner that
// reconnects at once, a respawn, gets the board). The lease ends when its client disconnects, when no
// byte (request or heartbeat; NetBoard sends one every 2 s, during runs too) came from it for
// lease_timeout_ms, or when TCP keepalive probes go unanswered: a runner that vanished, even
// mid-run, frees the board. A run in progress then completes on the board (a simulated run
// cannot be interrupted), its reply is dropped, and the encoder is reset (trTeControl = 0)
// before the next client gets the board. Every session ends with that reset.
//
// While a request executes the agent sends a heartbeat frame every heartbeat_ms, so the client
// tells a long run from a vanished agent. Payloads (image, workload ELF) are kept in a cache
// folder by SHA-256 (lab/payload_cache.h) across sessions; a deploy of the image the board
// already holds is skipped (lab/board_server.h ServerState).
//
// Handshakes (docs/lab.md "Limits"): each accepted connection gets a worker thread that makes
// the TLS handshake within handshake_timeout_ms, so a silent or slow peer delays nobody else. At
// most max_connections_per_second new connections a second are taken from one address, at most
// max_handshakes are in flight, at most max_handshakes_per_address from one address; a
// connection over any limit is closed at once and logged (one line per address a second,
// with the count of those not logged). The worker that completes a handshake then waits for the
// lease (at most 2 s) and serves the session itself, or answers "busy".
//
// Threading: Serve() on one thread (it accepts; handshakes and the session run on workers);
// Stop() from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/status.h"
#include "lab/board.h"
#include "lab/board_server.h"
#include "lab/net/pki.h"

namespace ctte::lab::net {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarn = 2 };

/// The largest max_handshakes an agent takes (each handshake in flight is a thread).
inline constexpr int kMaxHandshakesLimit = 1024;
/// The largest max_connections_per_second an agent takes.
inline constexpr int kMaxConnectionRateLimit = 10'000;
/// The largest max_requests_per_second an agent takes.
inline constexpr int kMaxRequestRateLimit = 1'000'000;

struct AgentOptions {
  std::string host = "127.0.0.1";  ///< address to listen on
  uint16_t port = 0;               ///< 0: an ephemeral port (see Agent::port())
  TlsFiles tls;
  int handshake_timeout_ms = 10'000;
  /// Handshakes run on worker threads, off the accept loop, each within handshake_timeout_ms:
  /// at most this many at once (a peer beyond it is closed at once and logged) ...
  int max_handshakes = 64;
  /// ... and at most this many from one address, so that silent or slow peers of one host
  /// cannot hold the slots a runner of another host needs.
  int max_handshakes_per_address = 8;
  /// New connections a second from one address (a token bucket holding one second's worth); a
  /// connection beyond it is closed at once, before any TLS work, and logged.
  int max_connections_per_second = 20;
  /// Requests (frames) a second one session is served; beyond it requests wait (they are
  /// slowed, not refused) and the agent logs the session once a second
  /// (ServerOptions::max_requests_per_second). A soaking runner sends a few hundred a second at
  /// most (docs/lab.md "Limits").
  int max_requests_per_second = 1'000;
  /// A session whose client sent no byte (request or heartbeat) for this long is dropped and
  /// its lease expires.
  int lease_timeout_ms = 30'000;
  /// Heartbeats to the client while a request executes (0: none).
  int heartbeat_ms = 1'000;
  /// The payload cache folder; "" = a new temporary folder, removed with the agent.
  std::string cache_dir;
  /// The cache's byte budget: storing a payload evicts the least recently used ones to fit.
  uint64_t cache_bytes = uint64_t{4} << 30;
  /// The largest image a deploy may carry, and the largest payload a put may carry (a workload
  /// ELF); checked from the request's header before any payload byte is read. Each is at most
  /// cache_bytes and kMaxPayloadBytes (the frame limit).
  uint64_t max_image_bytes = uint64_t{256} << 20;
  uint64_t max_put_bytes = uint64_t{64} << 20;
  /// Certificate names (CN) of the runners this agent serves; a client certificate of the lab
  /// CA with another name is refused after the handshake, with the reason logged. Empty: every
  /// runner certificate of the lab CA (ctte-board --listen requires a list).
  std::vector<std::string> allow;
  /// The protocol server's options; Listen() sets payload_only (no client path is used, no
  /// TEST_* op), the cache state and the heartbeats.
  ServerOptions server;
  /// Where log lines go (default: stderr, "ctte-board: <line>"). kWarn: a dropped or refused
  /// peer; kInfo: sessions and leases; kDebug: the bridge's details.
  std::function<void(LogLevel, const std::string&)> log;
};

class Agent {
 public:
  /// Loads the TLS files and binds the listening socket.
  static Result<std::unique_ptr<Agent>> Listen(Board& board, AgentOptions options);
  ~Agent();
  uint16_t port() const { return port_; }
  /// Accepts and serves clients one at a time until Stop().
  Status Serve();
  /// Makes Serve() return after the current session.
  void Stop();

  uint64_t sessions() const { return sessions_.load(); }  ///< clients that passed the handshake
  uint64_t refused() const { return refused_.load(); }    ///< peers dropped before a session
  uint64_t busy() const { return busy_.load(); }          ///< clients told "busy: leased by"
  uint64_t resets() const { return resets_.load(); }      ///< board resets after sessions
  /// Connections closed unheard: over the per-address rate, or max_handshakes (per address)
  /// in flight.
  uint64_t over_limit() const { return over_limit_.load(); }
  const PayloadCache& cache() const { return *cache_; }

 private:
  struct Impl;
  Agent() = default;
  void Log(LogLevel level, const std::string& line);
  struct Conn;
  void Session(std::unique_ptr<Conn> conn);
  bool Handshake(Conn& conn);  ///< false: dropped and logged
  void Busy(Conn& conn);       ///< answers "busy: leased by ..." and closes
  struct Worker;
  /// A worker's life: the handshake (holding one of `address`'s slots), then the lease.
  void Handle(std::unique_ptr<Conn> conn, const std::string& address);
  /// Takes a handshake slot for `address`, or logs the refusal and returns false.
  bool TakeSlot(const std::string& address, const std::string& peer);
  void ReleaseSlot(const std::string& address);
  std::unique_ptr<Impl> impl_;
  Board* board_ = nullptr;
  AgentOptions options_;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> sessions_{0}, refused_{0}, busy_{0}, resets_{0}, over_limit_{0};
  std::mutex slots_mu_;
  int handshaking_ = 0;                              ///< guarded by slots_mu_
  std::map<std::string, int> handshaking_by_addr_;  ///< guarded by slots_mu_
  struct Quiet {
    std::chrono::steady_clock::time_point logged{};
    uint64_t unlogged = 0;
  };
  std::map<std::string, Quiet> quiet_;  ///< over-limit log lines per address; slots_mu_
  struct Bucket {
    double tokens = 0;
    std::chrono::steady_clock::time_point last{};
  };
  std::map<std::string, Bucket> buckets_;  ///< connection rate per address; slots_mu_
  void ResetBoard(uint64_t session);
  std::unique_ptr<PayloadCache> cache_;
  std::string temp_cache_;  ///< a temporary cache folder we made ("" = none)
  ServerState state_;
  std::mutex lease_mu_;
  std::condition_variable lease_cv_;
  std::string lease_holder_;  ///< guarded by lease_mu_; "" = free
  std::string lease_since_;
  bool lease_ending_ = false;  ///< guarded by lease_mu_: the holder's client is gone
};

}  // namespace ctte::lab::net
