#include "lab/net/net_board.h"

#include <openssl/x509v3.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>

#include "lab/failure.h"
#include "lab/protocol.h"
#include "lab/net/tls_bridge.h"

namespace ctte::lab::net {

struct NetBoard::Conn {
  asio::io_context io;
  std::unique_ptr<asio::ssl::context> ctx;
  std::unique_ptr<TlsStream> tls;
  BridgeCounters bytes;
};

Result<std::unique_ptr<NetBoard>> NetBoard::Connect(const NetBoardOptions& o) {
  const std::string where = o.host + ":" + std::to_string(o.port);
  auto conn = std::make_unique<Conn>();
  CTTE_ASSIGN_OR_RETURN(conn->ctx, MakeTlsContext(o.tls, /*server=*/false));
  // Chain to the lab CA (OpenSSL's verification), and the leaf must name the expected board.
  std::string chain_error, presented;
  conn->ctx->set_verify_callback([&](bool preverified, asio::ssl::verify_context& vc) {
    X509_STORE_CTX* sc = vc.native_handle();
    X509* cert = X509_STORE_CTX_get_current_cert(sc);
    if (!preverified) {
      if (chain_error.empty()) {
        chain_error = std::string(X509_verify_cert_error_string(X509_STORE_CTX_get_error(sc))) +
                      " (certificate '" + CommonName(cert) + "')";
      }
      return false;
    }
    if (X509_STORE_CTX_get_error_depth(sc) == 0) {
      presented = CommonName(cert);
      if (!LeafHasRoleEku(cert, /*peer_is_client=*/false)) {
        chain_error = "no serverAuth extended key usage (not a board's certificate; certificate '" +
                      presented + "')";
        X509_STORE_CTX_set_error(sc, X509_V_ERR_INVALID_PURPOSE);
        return false;
      }
      if (X509_check_host(cert, o.expected_name.data(), o.expected_name.size(), 0, nullptr) != 1) {
        chain_error = "name";
        return false;
      }
    }
    return true;
  });
  conn->tls = std::make_unique<TlsStream>(conn->io, *conn->ctx);
  auto& sock = conn->tls->lowest_layer();
  boost::system::error_code ec;
  const auto addr = asio::ip::make_address(o.host, ec);
  if (ec) return Status::InvalidArgument("board address '" + o.host + "': " + ec.message());
  bool done = false;
  boost::system::error_code cec;
  sock.async_connect(Tcp::endpoint(addr, o.port), [&](const boost::system::error_code& e) {
    cec = e;
    done = true;
  });
  if (!RunWithTimeout(conn->io, sock, o.connect_timeout_ms, done)) {
    return BoardTimeoutError("connect to board agent at " + where + " after " +
                             std::to_string(o.connect_timeout_ms) + " ms");
  }
  if (cec) return BoardDiedError("cannot connect to board agent at " + where + ": " + cec.message());
  SSL_set_tlsext_host_name(conn->tls->native_handle(), o.expected_name.c_str());
  done = false;
  boost::system::error_code hec;
  conn->tls->async_handshake(asio::ssl::stream_base::client, [&](const boost::system::error_code& e) {
    hec = e;
    done = true;
  });
  if (!RunWithTimeout(conn->io, sock, o.connect_timeout_ms, done)) {
    return BoardTimeoutError("TLS handshake with board agent at " + where + " after " +
                             std::to_string(o.connect_timeout_ms) + " ms");
  }
  if (hec) {
    if (chain_error == "name") {
      return Status::InvalidArgument("refused board agent at " + where + ": its certificate names '" +
                                     presented + "', expected '" + o.expected_name + "'");
    }
    if (!chain_error.empty()) {
      return Status::InvalidArgument("refused board agent at " + where + " (expected '" +
                                     o.expected_name + "'): certificate not from the lab CA: " +
                                     chain_error);
    }
    return BoardDiedError("TLS handshake with board agent at " + where + " (expected '" +
                          o.expected_name + "'): " + hec.message());
  }
  conn->ctx->set_verify_callback([](bool p, asio::ssl::verify_context&) { return p; });
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    return Status::IOError("socketpair failed");
  }
  std::unique_ptr<NetBoard> b(new NetBoard());
  b->peer_name_ = presented;
  b->conn_ = std::move(conn);
  b->raw_fd_ = sv[0];
  RemoteBoardOptions ro = o.remote;
  ro.payload_cache = true;
  ro.silence_timeout_ms = o.agent_silence_ms;
  b->remote_ = RemoteBoard::Connect(sv[0], ro);
  Conn* c = b->conn_.get();
  b->bridge_ = std::thread([c, fd = sv[1]] { (void)RunBridge(*c->tls, fd, -1, &c->bytes); });
  if (o.heartbeat_ms > 0) {
    NetBoard* nb = b.get();
    b->heartbeat_ = std::thread([nb, period = o.heartbeat_ms] {
      std::unique_lock<std::mutex> lk(nb->hb_mu_);
      while (!nb->hb_cv_.wait_for(lk, std::chrono::milliseconds(period),
                                  [nb] { return nb->hb_stop_; })) {
        if (!nb->remote_->SendHeartbeat(period).ok()) return;  // the connection is gone
      }
    });
  }
  return b;
}

void NetBoard::StopHeartbeats() {
  {
    std::lock_guard<std::mutex> lk(hb_mu_);
    hb_stop_ = true;
  }
  hb_cv_.notify_all();
  if (heartbeat_.joinable()) heartbeat_.join();
}

void NetBoard::TEST_StopHeartbeats() { StopHeartbeats(); }

uint64_t NetBoard::bytes_sent() const { return conn_->bytes.to_peer.load(); }
uint64_t NetBoard::bytes_received() const { return conn_->bytes.from_peer.load(); }

NetBoard::~NetBoard() {
  StopHeartbeats();
  remote_.reset();  // closes the protocol end: the bridge sees EOF and ends
  if (bridge_.joinable()) bridge_.join();
}

Status NetBoard::TEST_SendRaw(const std::string& bytes) {
  const ssize_t n = ::send(raw_fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  if (n != static_cast<ssize_t>(bytes.size())) return Status::IOError("send failed");
  return Status::Ok();
}

Status TEST_ConnectWithoutCertificate(const std::string& host, uint16_t port,
                                      const std::string& ca_file, int timeout_ms) {
  asio::io_context io;
  asio::ssl::context ctx(asio::ssl::context::tls_client);
  boost::system::error_code ec;
  ctx.load_verify_file(ca_file, ec);
  if (ec) return Status::InvalidArgument("CA " + ca_file + ": " + ec.message());
  ctx.set_verify_mode(asio::ssl::verify_peer);
  TlsStream tls(io, ctx);
  tls.lowest_layer().connect(Tcp::endpoint(asio::ip::make_address(host), port), ec);
  if (ec) return Status::IOError("connect: " + ec.message());
  bool done = false;
  boost::system::error_code hec;
  tls.async_handshake(asio::ssl::stream_base::client, [&](const boost::system::error_code& e) {
    hec = e;
    done = true;
  });
  if (!RunWithTimeout(io, tls.lowest_layer(), timeout_ms, done)) return Status::Timeout("handshake");
  if (hec) return Status::Unavailable("handshake refused: " + hec.message());
  // Built by EncodeFrame: a string literal with embedded NULs would end at the first one.
  const std::vector<uint8_t> frame = EncodeFrame(Frame{R"({"v":1,"id":1,"op":"identify"})", {}});
  done = false;
  boost::system::error_code wec, rec;
  char buf[64];
  asio::async_write(tls, asio::buffer(frame), [&](const boost::system::error_code& e, size_t) {
    wec = e;
    if (e) {
      done = true;
      return;
    }
    asio::async_read(tls, asio::buffer(buf, 12), [&](const boost::system::error_code& e2, size_t) {
      rec = e2;
      done = true;
    });
  });
  if (!RunWithTimeout(io, tls.lowest_layer(), timeout_ms, done)) return Status::Timeout("read");
  if (wec) return Status::Unavailable("write refused: " + wec.message());
  if (rec) return Status::Unavailable("read refused: " + rec.message());
  return Status::Ok();
}

}  // namespace ctte::lab::net
