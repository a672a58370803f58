// Internal to ctte_lab_net (the one place that includes Boost.Asio and OpenSSL TLS headers):
// TLS contexts for the lab (TLS 1.2+, mutual, chained to the lab CA) and the bridge that copies
// the decrypted bytes of a TLS stream to and from a local socket, so that the fd-based board
// protocol (lab/board_server.h, lab/remote_board.h) runs unchanged on top.
#pragma once

#include <utility>  // before Asio: Boost 1.74's awaitable.hpp uses std::exchange without it

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "base/status.h"
#include "lab/net/pki.h"

namespace ctte::lab::net {

namespace asio = boost::asio;
using Tcp = asio::ip::tcp;
using TlsStream = asio::ssl::stream<Tcp::socket>;

/// A context with this party's certificate and key, the lab CA as the only trust anchor,
/// TLS 1.2 or later, and peer verification required (server: a client certificate is required).
Result<std::unique_ptr<asio::ssl::context>> MakeTlsContext(const TlsFiles& files, bool server);

/// The peer certificate's CN, "" when none.
std::string PeerCommonName(TlsStream& tls);

/// After a failed handshake: " (certificate: REASON)" when the peer's certificate failed
/// verification (revoked, expired, unsuitable purpose, ...), else "".
std::string VerifyReason(TlsStream& tls);

/// "CN" of a certificate, "" when none.
std::string CommonName(X509* cert);
/// True when the peer's leaf certificate names the extended key usage its role needs:
/// clientAuth for a runner (`peer_is_client`, checked by an agent), serverAuth for a board.
/// OpenSSL's purpose check lets a certificate without the extension pass as either; a lab
/// certificate always has it (lab issue), so one without it is refused.
bool LeafHasRoleEku(X509* cert, bool peer_is_client);

/// Bytes a bridge moved (protocol bytes, before TLS), readable from any thread.
struct BridgeCounters {
  std::atomic<uint64_t> from_peer{0};  ///< read from the TLS peer
  std::atomic<uint64_t> to_peer{0};    ///< written to the TLS peer
};

/// Copies bytes both ways between `tls` and the local stream socket `fd` (owned; closed at the
/// end) until either side ends, an error, or idle_ms (< 0: never) without a byte *from the TLS
/// peer* (its requests or heartbeats: the agent's lease expiry). Runs tls's io_context on the
/// calling thread. Returns why it ended, for logs. `counters` (optional) count the bytes.
std::string RunBridge(TlsStream& tls, int fd, int idle_ms, BridgeCounters* counters = nullptr);

/// Runs `io` until `op_done` or timeout_ms; on timeout closes `sock` (cancelling the op) and
/// returns false.
bool RunWithTimeout(asio::io_context& io, Tcp::socket::lowest_layer_type& sock, int timeout_ms,
                    const bool& op_done);

}  // namespace ctte::lab::net
