#include "lab/net/tls_bridge.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <chrono>
#include <cstring>

namespace ctte::lab::net {

namespace {

// A private key another user could read is a key another user holds: refused.
Status CheckKeyMode(const std::string& path) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) {
    return Status::InvalidArgument("TLS key " + path + ": " + std::strerror(errno));
  }
  if ((st.st_mode & 077) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return Status::InvalidArgument("TLS key " + path + " has mode " + mode +
                                   ": group or others may access it; chmod 600 it");
  }
  return Status::Ok();
}

std::string CrlPath(const TlsFiles& files) {
  if (!files.crl.empty()) return files.crl;
  const size_t slash = files.ca.rfind('/');
  const std::string beside = (slash == std::string::npos ? std::string() : files.ca.substr(0, slash + 1)) +
                             "crl.pem";
  struct stat st{};
  return ::stat(beside.c_str(), &st) == 0 ? beside : std::string();
}

// Loads the CA's revocation list into the context's store and turns the check on.
Status LoadCrl(SSL_CTX* ctx, const std::string& path) {
  BIO* bio = BIO_new_file(path.c_str(), "r");
  X509_CRL* crl = bio != nullptr ? PEM_read_bio_X509_CRL(bio, nullptr, nullptr, nullptr) : nullptr;
  BIO_free(bio);
  if (crl == nullptr) {
    ERR_clear_error();
    return Status::InvalidArgument("TLS revocation list " + path + ": not a PEM X.509 CRL");
  }
  X509_STORE* store = SSL_CTX_get_cert_store(ctx);
  const bool ok = X509_STORE_add_crl(store, crl) == 1 &&
                  X509_STORE_set_flags(store, X509_V_FLAG_CRL_CHECK) == 1;
  X509_CRL_free(crl);
  if (!ok) return Status::Internal("TLS revocation list " + path + ": cannot load it");
  return Status::Ok();
}

int VerifyRoleEku(int ok, X509_STORE_CTX* sc, bool peer_is_client) {
  if (ok != 1) return ok;
  if (X509_STORE_CTX_get_error_depth(sc) == 0 &&
      !LeafHasRoleEku(X509_STORE_CTX_get_current_cert(sc), peer_is_client)) {
    X509_STORE_CTX_set_error(sc, X509_V_ERR_INVALID_PURPOSE);
    return 0;
  }
  return 1;
}

}  // namespace

Result<std::unique_ptr<asio::ssl::context>> MakeTlsContext(const TlsFiles& files, bool server) {
  auto ctx = std::make_unique<asio::ssl::context>(server ? asio::ssl::context::tls_server
                                                         : asio::ssl::context::tls_client);
  boost::system::error_code ec;
  ctx->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                       asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                       asio::ssl::context::no_tlsv1_1 | asio::ssl::context::single_dh_use,
                   ec);
  if (ec) return Status::Internal("TLS options: " + ec.message());
  if (SSL_CTX_set_min_proto_version(ctx->native_handle(), TLS1_2_VERSION) != 1) {
    return Status::Internal("TLS: cannot require TLS 1.2");
  }
  // No TLS 1.2 renegotiation either way: a peer asking for one is refused (a no_renegotiation
  // alert, after which OpenSSL's peer ends the session). OpenSSL 3 already refuses a client's
  // by default; this says so for both sides and every OpenSSL.
  SSL_CTX_set_options(ctx->native_handle(), SSL_OP_NO_RENEGOTIATION);
  SSL_CTX_clear_options(ctx->native_handle(), SSL_OP_ALLOW_CLIENT_RENEGOTIATION);
  ctx->use_certificate_chain_file(files.cert, ec);
  if (ec) return Status::InvalidArgument("TLS certificate " + files.cert + ": " + ec.message());
  CTTE_RETURN_IF_ERROR(CheckKeyMode(files.key));
  ctx->use_private_key_file(files.key, asio::ssl::context::pem, ec);
  if (ec) return Status::InvalidArgument("TLS key " + files.key + ": " + ec.message());
  if (SSL_CTX_check_private_key(ctx->native_handle()) != 1) {
    return Status::InvalidArgument("TLS key " + files.key + " does not match " + files.cert);
  }
  ctx->load_verify_file(files.ca, ec);
  if (ec) return Status::InvalidArgument("TLS CA " + files.ca + ": " + ec.message());
  const std::string crl = CrlPath(files);
  if (!crl.empty()) CTTE_RETURN_IF_ERROR(LoadCrl(ctx->native_handle(), crl));
  // The peer's extended key usage must fit its side: an agent takes only clientAuth (runner)
  // certificates, a runner only serverAuth (board) ones (OpenSSL's purpose check).
  if (SSL_CTX_set_purpose(ctx->native_handle(),
                          server ? X509_PURPOSE_SSL_CLIENT : X509_PURPOSE_SSL_SERVER) != 1) {
    return Status::Internal("TLS: cannot set the peer certificate purpose");
  }
  ctx->set_verify_mode(asio::ssl::verify_peer | asio::ssl::verify_fail_if_no_peer_cert);
  // The leaf must name its role's extended key usage (a certificate without the extension would
  // pass OpenSSL's purpose check as runner and board alike). NetBoard replaces this callback
  // with its own, which checks the same (lab/net/net_board.cc).
  SSL_CTX_set_verify(ctx->native_handle(), SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT,
                     server ? +[](int ok, X509_STORE_CTX* sc) { return VerifyRoleEku(ok, sc, true); }
                            : +[](int ok, X509_STORE_CTX* sc) { return VerifyRoleEku(ok, sc, false); });
  return ctx;
}

bool LeafHasRoleEku(X509* cert, bool peer_is_client) {
  if (cert == nullptr || (X509_get_extension_flags(cert) & EXFLAG_XKUSAGE) == 0) return false;
  return (X509_get_extended_key_usage(cert) & (peer_is_client ? XKU_SSL_CLIENT : XKU_SSL_SERVER)) != 0;
}

std::string CommonName(X509* cert) {
  if (cert == nullptr) return "";
  char buf[256] = {0};
  if (X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_commonName, buf, sizeof buf) < 0) {
    return "";
  }
  return buf;
}

std::string VerifyReason(TlsStream& tls) {
  const long r = SSL_get_verify_result(tls.native_handle());
  if (r == X509_V_OK) return "";
  return std::string(" (certificate: ") + X509_verify_cert_error_string(r) + ")";
}

std::string PeerCommonName(TlsStream& tls) {
  X509* cert = SSL_get1_peer_certificate(tls.native_handle());
  std::string cn = CommonName(cert);
  X509_free(cert);
  return cn;
}

bool RunWithTimeout(asio::io_context& io, Tcp::socket::lowest_layer_type& sock, int timeout_ms,
                    const bool& op_done) {
  io.restart();
  bool timed_out = false;
  asio::steady_timer timer(io, std::chrono::milliseconds(timeout_ms));
  timer.async_wait([&](const boost::system::error_code& ec) {
    if (ec || op_done) return;
    timed_out = true;
    boost::system::error_code ignored;
    sock.close(ignored);
  });
  while (!op_done && !timed_out && io.run_one() > 0) {
  }
  timer.cancel();
  io.run();  // let the cancelled handlers finish
  io.restart();
  return !timed_out && op_done;
}

namespace {

struct Bridge {
  Bridge(TlsStream& t, int fd, int idle, BridgeCounters* c)
      : tls(t), local(t.get_executor()), timer(t.get_executor()), idle_ms(idle), counters(c) {
    local.assign(asio::local::stream_protocol(), fd);
  }
  TlsStream& tls;
  asio::local::stream_protocol::socket local;
  asio::steady_timer timer;
  int idle_ms;
  BridgeCounters* counters;
  std::array<char, 64 * 1024> up{};    // tls -> local
  std::array<char, 64 * 1024> down{};  // local -> tls
  bool done = false;
  std::string why;

  void Finish(const std::string& reason) {
    if (done) return;
    done = true;
    why = reason;
    boost::system::error_code ec;
    timer.cancel();
    local.close(ec);
    tls.lowest_layer().shutdown(Tcp::socket::shutdown_both, ec);
    tls.lowest_layer().close(ec);
  }
  void Touch() {
    if (idle_ms < 0 || done) return;
    timer.expires_after(std::chrono::milliseconds(idle_ms));
    timer.async_wait([this](const boost::system::error_code& ec) {
      if (!ec) {
        Finish("lease expired: no byte (request or heartbeat) from the peer for " +
               std::to_string(idle_ms) + " ms");
      }
    });
  }
  void ReadTls() {
    tls.async_read_some(asio::buffer(up), [this](const boost::system::error_code& ec, size_t n) {
      if (done) return;
      if (ec) {
        // The peer went away (or broke TLS): end the local side so the protocol sees EOF.
        if (ec == asio::error::eof || ec == asio::ssl::error::stream_truncated) {
          boost::system::error_code ignored;
          local.shutdown(asio::local::stream_protocol::socket::shutdown_send, ignored);
          peer_closed = true;
          if (local_closed) Finish("peer closed");
          return;
        }
        Finish("peer: " + ec.message());
        return;
      }
      Touch();
      if (counters != nullptr) counters->from_peer += n;
      asio::async_write(local, asio::buffer(up.data(), n),
                        [this](const boost::system::error_code& wec, size_t) {
                          if (done) return;
                          if (wec) return Finish("local write: " + wec.message());
                          ReadTls();
                        });
    });
  }
  void ReadLocal() {
    local.async_read_some(asio::buffer(down), [this](const boost::system::error_code& ec, size_t n) {
      if (done) return;
      if (ec) {
        local_closed = true;
        Finish(ec == asio::error::eof ? (peer_closed ? "peer closed" : "session ended")
                                      : "local read: " + ec.message());
        return;
      }
      if (counters != nullptr) counters->to_peer += n;
      asio::async_write(tls, asio::buffer(down.data(), n),
                        [this](const boost::system::error_code& wec, size_t) {
                          if (done) return;
                          if (wec) return Finish("peer write: " + wec.message());
                          ReadLocal();
                        });
    });
  }
  bool peer_closed = false;
  bool local_closed = false;
};

}  // namespace

std::string RunBridge(TlsStream& tls, int fd, int idle_ms, BridgeCounters* counters) {
  auto& io = static_cast<asio::io_context&>(tls.get_executor().context());
  io.restart();
  Bridge b(tls, fd, idle_ms, counters);
  b.Touch();
  b.ReadTls();
  b.ReadLocal();
  io.run();
  b.Finish("stopped");
  io.restart();
  return b.why;
}

}  // namespace ctte::lab::net
