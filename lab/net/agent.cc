#include "lab/net/agent.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <thread>

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
  CTTE_ASSIGN_OR_RETURN(a->impl_->ctx, MakeTlsContext(a->options_.tls, /*server=*/true));
  boost::system::error_code ec;
  const auto addr = asio::ip::make_address(a->options_.host, ec);
  if (ec) return Status::InvalidArgument("listen address '" + a->options_.host + "': " + ec.message());
  const Tcp::endpoint ep(addr, a->options_.port);
  auto& acc = a->impl_->acceptor;
  acc.open(ep.protocol(), ec);
  if (!ec) acc.set_option(Tcp::acceptor::reuse_address(true), ec);
  if (!ec) acc.bind(ep, ec);
  if (!ec) acc.listen(8, ec);
  if (ec) {
    return Status::IOError("listen on " + a->options_.host + ":" + std::to_string(a->options_.port) +
                           ": " + ec.message());
  }
  a->port_ = acc.local_endpoint().port();
  return a;
}

Agent::~Agent() = default;

void Agent::Log(const std::string& line) {
  if (options_.log) {
    options_.log(line);
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

Status Agent::Serve() {
  Log("listening on " + options_.host + ":" + std::to_string(port_) + " (TLS, client certificates required)");
  while (!stop_) {
    Tcp::socket sock(impl_->io);
    boost::system::error_code ec;
    impl_->acceptor.accept(sock, ec);
    if (stop_) break;
    if (ec) {
      if (ec == asio::error::interrupted || ec == asio::error::connection_aborted) continue;
      return Status::IOError("accept: " + ec.message());
    }
    Session(&sock);
  }
  Log("stopped");
  return Status::Ok();
}

void Agent::Session(void* socket_ptr) {
  Tcp::socket& sock = *static_cast<Tcp::socket*>(socket_ptr);
  boost::system::error_code ec;
  const Tcp::endpoint remote = sock.remote_endpoint(ec);
  const std::string peer =
      ec ? std::string("unknown peer") : remote.address().to_string() + ":" + std::to_string(remote.port());
  TlsStream tls(std::move(sock), *impl_->ctx);
  bool done = false;
  boost::system::error_code hs_ec;
  tls.async_handshake(asio::ssl::stream_base::server, [&](const boost::system::error_code& e) {
    hs_ec = e;
    done = true;
  });
  if (!RunWithTimeout(impl_->io, tls.lowest_layer(), options_.handshake_timeout_ms, done)) {
    ++refused_;
    Log("dropped " + peer + ": no TLS handshake within " +
        std::to_string(options_.handshake_timeout_ms) + " ms");
    return;
  }
  if (hs_ec) {
    ++refused_;
    tls.lowest_layer().close(ec);
    Log("dropped " + peer + ": TLS handshake failed: " + hs_ec.message());
    return;
  }
  const std::string name = PeerCommonName(tls);
  ++sessions_;
  Log("session " + std::to_string(sessions_.load()) + ": client '" + name + "' at " + peer);
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    Log("socketpair failed; dropping " + peer);
    tls.lowest_layer().close(ec);
    return;
  }
  Status served;
  std::thread server([&, fd = sv[1]] {
    served = ServeBoard(*board_, fd, fd, options_.server, nullptr);
    ::shutdown(fd, SHUT_RDWR);
    ::close(fd);
  });
  const std::string why = RunBridge(tls, sv[0], options_.idle_timeout_ms);
  server.join();
  Log("session with '" + name + "' at " + peer + " ended: " + why +
      (served.ok() ? "" : "; protocol: " + served.ToString()));
}

}  // namespace ctte::lab::net
