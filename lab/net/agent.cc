#include "lab/net/agent.h"

#include <sys/socket.h>
#include <unistd.h>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <list>
#include <thread>
#include <tuple>

#include "base/text.h"
#include "lab/protocol.h"
#include "lab/wire.h"
#include "regmap/registers.h"

#include "lab/net/tls_bridge.h"

namespace ctte::lab::net {

struct Agent::Impl {
  asio::io_context io;
  std::unique_ptr<asio::ssl::context> ctx;
  Tcp::acceptor acceptor{io};
};

Result<std::unique_ptr<Agent>> Agent::Listen(Board& board, AgentOptions options) {
  std::unique_ptr<Agent> a(new Agent());
  a->impl_ = std::make_unique<Impl>();
  a->board_ = &board;
  a->options_ = std::move(options);
  for (const auto& [name, value, most] : {std::tuple<const char*, int, int>{
                                              "max_handshakes", a->options_.max_handshakes,
                                              kMaxHandshakesLimit},
                                          {"max_connections_per_second",
                                           a->options_.max_connections_per_second,
                                           kMaxConnectionRateLimit},
                                          {"max_requests_per_second",
                                           a->options_.max_requests_per_second,
                                           kMaxRequestRateLimit}}) {
    if (value < 1 || value > most) {
      return Status::InvalidArgument(std::string(name) + " " + std::to_string(value) +
                                     " out of range: expected 1.." + std::to_string(most));
    }
  }
  if (a->options_.max_handshakes_per_address < 1 ||
      a->options_.max_handshakes_per_address > a->options_.max_handshakes) {
    return Status::InvalidArgument(
        "max_handshakes_per_address " + std::to_string(a->options_.max_handshakes_per_address) +
        " out of range: expected 1..max_handshakes (" + std::to_string(a->options_.max_handshakes) +
        ")");
  }
  for (const auto& [name, value] : {std::pair<const char*, uint64_t>{"max_image_bytes", a->options_.max_image_bytes},
                                    {"max_put_bytes", a->options_.max_put_bytes}}) {
    const uint64_t most = std::min<uint64_t>(kMaxPayloadBytes, a->options_.cache_bytes);
    if (value < 1 || value > most) {
      return Status::InvalidArgument(std::string(name) + " " + std::to_string(value) +
                                     " out of range: expected 1.." + std::to_string(most) +
                                     " (the frame limit and the cache budget)");
    }
  }
  CTTE_ASSIGN_OR_RETURN(a->impl_->ctx, MakeTlsContext(a->options_.tls, /*server=*/true));
  std::string cache_dir = a->options_.cache_dir;
  if (cache_dir.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    std::string t = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") +
                    "/ctte-agent-cache-XXXXXX";
    if (::mkdtemp(t.data()) == nullptr) return Status::IOError("payload cache: mkdtemp " + t);
    cache_dir = a->temp_cache_ = t;
  }
  CTTE_ASSIGN_OR_RETURN(a->cache_, PayloadCache::Open(cache_dir, a->options_.cache_bytes));
  a->state_.cache = a->cache_.get();
  Agent* self = a.get();
  a->state_.log = [self](const std::string& line) { self->Log(LogLevel::kInfo, line); };
  a->options_.server.state = &a->state_;
  a->options_.server.payload_only = true;
  a->options_.server.payload_caps =
      ServerOptions::PayloadCaps{a->options_.max_image_bytes, a->options_.max_put_bytes};
  a->options_.server.heartbeat_ms = a->options_.heartbeat_ms;
  a->options_.server.max_requests_per_second = a->options_.max_requests_per_second;
  boost::system::error_code ec;
  const auto addr = asio::ip::make_address(a->options_.host, ec);
  if (ec) return Status::InvalidArgument("listen address '" + a->options_.host + "': " + ec.message());
  const Tcp::endpoint ep(addr, a->options_.port);
  auto& acc = a->impl_->acceptor;
  acc.open(ep.protocol(), ec);
  if (!ec) acc.set_option(Tcp::acceptor::reuse_address(true), ec);
  if (!ec) acc.bind(ep, ec);
  if (!ec) acc.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return Status::IOError("listen on " + a->options_.host + ":" + std::to_string(a->options_.port) +
                           ": " + ec.message());
  }
  a->port_ = acc.local_endpoint().port();
  return a;
}

Agent::~Agent() {
  if (!temp_cache_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(temp_cache_, ec);
  }
}

void Agent::Log(LogLevel level, const std::string& line) {
  if (options_.log) {
    options_.log(level, line);
  } else {
    std::fprintf(stderr, "ctte-board: %s\n", line.c_str());
  }
}

void Agent::Stop() {
  stop_ = true;
  // Wake a blocking accept() with a connection of our own.
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return;
  boost::system::error_code ec;
  Tcp::endpoint ep = impl_->acceptor.local_endpoint(ec);
  if (!ec) {
    if (ep.address().is_unspecified()) ep.address(asio::ip::address_v4::loopback());
    (void)::connect(fd, ep.data(), static_cast<socklen_t>(ep.size()));
  }
  ::close(fd);
}

struct Agent::Conn {
  asio::io_context io;
  std::unique_ptr<TlsStream> tls;
  std::string peer;  ///< address:port
  std::string name;  ///< the client certificate's CN
};

namespace {
constexpr int kLeaseGraceMs = 2'000;
constexpr int kLiveHolderWaitMs = 200;

// Heartbeats: TCP keepalive on every session socket, so that a peer that vanished (power, cable)
// ends the session in about KEEPIDLE + KEEPINTVL * KEEPCNT seconds.
void EnableKeepalive(int fd) {
  int on = 1, idle = 10, intvl = 5, cnt = 3;
  (void)::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
  (void)::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
  (void)::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl);
  (void)::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt);
}
}  // namespace

struct Agent::Worker {
  std::thread thread;
  std::atomic<bool> done{false};
};

bool Agent::TakeSlot(const std::string& address, const std::string& peer) {
  std::lock_guard<std::mutex> lk(slots_mu_);
  const auto now = std::chrono::steady_clock::now();
  // The per-address connection rate: a token bucket of one second's worth.
  if (buckets_.size() > 4096) {
    std::erase_if(buckets_, [&](const auto& b) { return now - b.second.last > std::chrono::minutes(1); });
  }
  const double rate = options_.max_connections_per_second;
  auto [bit, fresh] = buckets_.try_emplace(address, Bucket{rate, now});
  Bucket& bucket = bit->second;
  if (!fresh) {
    const double dt = std::chrono::duration<double>(now - bucket.last).count();
    bucket.tokens = std::min(rate, bucket.tokens + dt * rate);
    bucket.last = now;
  }
  std::string why;
  int& mine = handshaking_by_addr_[address];
  if (bucket.tokens < 1.0) {
    why = "more than " + std::to_string(options_.max_connections_per_second) +
          " connections a second from " + address + " (the per-address rate)";
  } else if (handshaking_ >= options_.max_handshakes) {
    why = std::to_string(options_.max_handshakes) + " handshakes in flight (the limit)";
  } else if (mine >= options_.max_handshakes_per_address) {
    why = std::to_string(options_.max_handshakes_per_address) + " handshakes in flight from " +
          address + " (the per-address limit)";
  }
  if (why.empty()) {
    bucket.tokens -= 1.0;
    ++mine;
    ++handshaking_;
    return true;
  }
  if (mine == 0) handshaking_by_addr_.erase(address);
  ++refused_;
  ++over_limit_;
  // One line per address a second: a flood of connections is not a flood of log lines.
  Quiet& q = quiet_[address];
  if (now - q.logged < std::chrono::seconds(1)) {
    ++q.unlogged;
    return false;
  }
  const std::string more =
      q.unlogged == 0 ? "" : " (and " + std::to_string(q.unlogged) + " more not logged)";
  q.logged = now;
  q.unlogged = 0;
  if (quiet_.size() > 4096) quiet_.clear();  // bounded: at worst some lines are not suppressed
  Log(LogLevel::kWarn, "dropped " + peer + ": " + why + more);
  return false;
}

void Agent::ReleaseSlot(const std::string& address) {
  std::lock_guard<std::mutex> lk(slots_mu_);
  --handshaking_;
  auto it = handshaking_by_addr_.find(address);
  if (it != handshaking_by_addr_.end() && --it->second <= 0) handshaking_by_addr_.erase(it);
}

Status Agent::Serve() {
  Log(LogLevel::kInfo, "listening on " + options_.host + ":" + std::to_string(port_) +
      " (TLS, client certificates required)");
  std::list<std::unique_ptr<Worker>> workers;
  const auto reap = [&workers](bool all) {
    for (auto it = workers.begin(); it != workers.end();) {
      if (all || (*it)->done.load()) {
        (*it)->thread.join();
        it = workers.erase(it);
      } else {
        ++it;
      }
    }
  };
  Status result = Status::Ok();
  while (!stop_) {
    auto conn = std::make_unique<Conn>();
    Tcp::socket sock(conn->io);
    boost::system::error_code ec;
    impl_->acceptor.accept(sock, ec);
    reap(false);
    if (stop_) break;
    if (ec) {
      if (ec == asio::error::interrupted || ec == asio::error::connection_aborted) continue;
      result = Status::IOError("accept: " + ec.message());
      break;
    }
    const Tcp::endpoint remote = sock.remote_endpoint(ec);
    const std::string address = ec ? std::string("unknown") : remote.address().to_string();
    conn->peer = ec ? std::string("unknown peer") : address + ":" + std::to_string(remote.port());
    if (!TakeSlot(address, conn->peer)) {
      sock.close(ec);  // unheard: no TLS, no thread, no buffer
      continue;
    }
    EnableKeepalive(sock.native_handle());
    conn->tls = std::make_unique<TlsStream>(std::move(sock), *impl_->ctx);
    auto w = std::make_unique<Worker>();
    Worker* wp = w.get();
    w->thread = std::thread([this, wp, address, c = std::move(conn)]() mutable {
      Handle(std::move(c), address);
      wp->done = true;
    });
    workers.push_back(std::move(w));
  }
  reap(true);
  Log(LogLevel::kInfo, "stopped");
  return result;
}

void Agent::Handle(std::unique_ptr<Conn> conn, const std::string& address) {
  const bool shook = Handshake(*conn);
  ReleaseSlot(address);
  if (!shook) return;
  {
    // One lease: the first worker to find it free takes it. A holder that just disconnected
    // frees it within moments, so a client reconnecting right after its own session (a respawn)
    // is not told "busy".
    std::unique_lock<std::mutex> lk(lease_mu_);
    // A live holder: a moment for its session to notice that its client left (the bridge sees
    // EOF), then "busy" at once, so a peer asking while a runner soaks holds no thread for
    // long. An ending session (client gone, the board being reset): wait for it.
    (void)lease_cv_.wait_for(lk, std::chrono::milliseconds(kLiveHolderWaitMs),
                             [this] { return lease_holder_.empty() || lease_ending_; });
    if (!lease_cv_.wait_for(lk, std::chrono::milliseconds(kLeaseGraceMs),
                            [this] { return lease_holder_.empty() || !lease_ending_; }) ||
        !lease_holder_.empty()) {
      lk.unlock();
      Busy(*conn);
      return;
    }
    lease_holder_ = conn->name.empty() ? "(unnamed client)" : conn->name;
    lease_since_ = NowIsoUtc();
  }
  Session(std::move(conn));
}

bool Agent::Handshake(Conn& c) {
  bool done = false;
  boost::system::error_code hs_ec;
  c.tls->async_handshake(asio::ssl::stream_base::server, [&](const boost::system::error_code& e) {
    hs_ec = e;
    done = true;
  });
  if (!RunWithTimeout(c.io, c.tls->lowest_layer(), options_.handshake_timeout_ms, done)) {
    ++refused_;
    Log(LogLevel::kWarn, "dropped " + c.peer + ": no TLS handshake within " +
        std::to_string(options_.handshake_timeout_ms) + " ms");
    return false;
  }
  if (hs_ec) {
    ++refused_;
    boost::system::error_code ec;
    c.tls->lowest_layer().close(ec);
    Log(LogLevel::kWarn, "dropped " + c.peer + ": TLS handshake failed: " + hs_ec.message() +
                             VerifyReason(*c.tls));
    return false;
  }
  c.name = PeerCommonName(*c.tls);
  const auto& allow = options_.allow;
  if (!allow.empty() && std::find(allow.begin(), allow.end(), c.name) == allow.end()) {
    ++refused_;
    boost::system::error_code ec;
    c.tls->lowest_layer().shutdown(Tcp::socket::shutdown_both, ec);
    c.tls->lowest_layer().close(ec);
    Log(LogLevel::kWarn, "refused " + c.peer + ": client certificate " + QuoteForMessage(c.name) +
                             " is not in this agent's allowlist (--allow)");
    return false;
  }
  return true;
}

void Agent::Busy(Conn& c) {
  std::string msg;
  {
    std::lock_guard<std::mutex> lk(lease_mu_);
    msg = "busy: leased by " + lease_holder_ + " since " + lease_since_;
  }
  ++busy_;
  Log(LogLevel::kWarn, "refused '" + c.name + "' at " + c.peer + ": " + msg);
  const nlohmann::json h{{"v", kProtocolVersion}, {"id", 0}, {"ok", false},
                         {"error", wire::StatusToJson(Status::Unavailable(msg))}};
  const std::vector<uint8_t> frame = EncodeFrame(Frame{h.dump(), {}});
  bool done = false;
  asio::async_write(*c.tls, asio::buffer(frame), [&](const boost::system::error_code&, size_t) {
    done = true;
  });
  (void)RunWithTimeout(c.io, c.tls->lowest_layer(), options_.handshake_timeout_ms, done);
  boost::system::error_code ec;
  c.tls->lowest_layer().shutdown(Tcp::socket::shutdown_both, ec);
  c.tls->lowest_layer().close(ec);
}

// Leaves the board with the encoder in reset for the next client (trTeActive = 0). A board
// without an image has no encoder to reset.
void Agent::ResetBoard(uint64_t session) {
  Result<BoardIdentity> id = board_->Identify();
  if (!id.ok() || id->image_sha256.empty()) return;
  const Status s = board_->WriteReg(reg::kTeControl, 0);
  ++resets_;
  Log(s.ok() ? LogLevel::kInfo : LogLevel::kWarn,
      "session " + std::to_string(session) + ": board reset (trTeControl = 0)" +
          (s.ok() ? "" : " failed: " + s.ToString()));
}

void Agent::Session(std::unique_ptr<Conn> c) {
  const uint64_t n = ++sessions_;
  Log(LogLevel::kInfo, "session " + std::to_string(n) + ": client '" + c->name + "' at " + c->peer +
      " holds the lease");
  Log(LogLevel::kDebug, "session " + std::to_string(n) + ": " +
                            SSL_get_version(c->tls->native_handle()) + ", " +
                            SSL_get_cipher_name(c->tls->native_handle()));
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    Log(LogLevel::kWarn, "socketpair failed; dropping " + c->peer);
  } else {
    Status served;
    ServerOptions so = options_.server;
    const std::string who = "session " + std::to_string(n) + " '" + c->name + "' at " + c->peer;
    so.on_request = [this, who](const std::string& req) { Log(LogLevel::kInfo, who + ": " + req); };
    so.on_throttle = [this, who](const std::string& l) { Log(LogLevel::kWarn, who + ": " + l); };
    std::thread server([&, fd = sv[1]] {
      served = ServeBoard(*board_, fd, fd, so, nullptr);
      ::shutdown(fd, SHUT_RDWR);
      ::close(fd);
    });
    BridgeCounters bytes;
    const std::string why = RunBridge(*c->tls, sv[0], options_.lease_timeout_ms, &bytes);
    {
      std::lock_guard<std::mutex> lk(lease_mu_);
      lease_ending_ = true;  // the client is gone: a peer asking now waits for the lease
    }
    lease_cv_.notify_all();
    server.join();  // a run in progress completes first; its reply has nowhere to go
    Log(LogLevel::kInfo, "session " + std::to_string(n) + " with '" + c->name + "' at " + c->peer + " ended: " +
        why + (served.ok() ? "" : "; protocol: " + served.ToString()) + "; bytes from client " +
        std::to_string(bytes.from_peer.load()) + ", to client " + std::to_string(bytes.to_peer.load()));
  }
  c.reset();
  ResetBoard(n);
  Log(LogLevel::kInfo, "session " + std::to_string(n) + ": lease released");
  {
    std::lock_guard<std::mutex> lk(lease_mu_);
    lease_holder_.clear();
    lease_since_.clear();
    lease_ending_ = false;
  }
  lease_cv_.notify_all();
}

}  // namespace ctte::lab::net
