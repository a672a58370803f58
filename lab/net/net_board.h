// NetBoard: a Board reached over TLS at a board agent (lab/net/agent.h). It verifies the agent's
// certificate chain against the lab CA and that the certificate names the board it expected
// (subjectAltName DNS / CN == the inventory name), else refuses with an error naming both. The
// protocol client is RemoteBoard::Connect() over a socketpair whose other end a bridge thread
// copies to and from the TLS stream. A dropped connection is kBoardDied; an agent that does not
// answer within a request's timeout is kBoardTimeout (the connection is then closed).
//
// Payloads travel by hash (RemoteBoardOptions::payload_cache is set): the image and the
// workload ELF are sent only when the agent's cache lacks them. Heartbeats: a thread sends a
// heartbeat frame every heartbeat_ms for as long as the board is open, during runs too; they
// keep the agent's lease (an agent frees a board whose client fell silent). The agent's own
// heartbeats during a request let the client tell a long run from a vanished agent.
//
// Threading: one thread at a time (the bridge and heartbeat threads are internal).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "lab/board.h"
#include "lab/net/pki.h"
#include "lab/remote_board.h"

namespace ctte::lab::net {

struct NetBoardOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 0;
  std::string expected_name;  ///< the board's inventory name; the agent's certificate must name it
  TlsFiles tls;               ///< the runner's certificate, key and the lab CA
  int connect_timeout_ms = 10'000;  ///< TCP connect and TLS handshake, each
  RemoteBoardOptions remote;        ///< request timeouts (board_path and args are unused)
  int heartbeat_ms = 2'000;         ///< the runner's heartbeats to the agent (keep the lease)
  /// No frame from the agent (reply or its heartbeat, sent every second during a request) for
  /// this long: the agent is gone (kBoardTimeout), long before a run's own timeout.
  int agent_silence_ms = 15'000;
};

class NetBoard : public Board {
 public:
  static Result<std::unique_ptr<NetBoard>> Connect(const NetBoardOptions& options);
  ~NetBoard() override;

  Result<BoardIdentity> Identify() override { return remote_->Identify(); }
  Result<DeployReceipt> Deploy(const DeployRequest& r) override { return remote_->Deploy(r); }
  Result<uint64_t> SetClock(ClockDomain d, uint64_t hz) override { return remote_->SetClock(d, hz); }
  Result<uint64_t> ReadClock(ClockDomain d) override { return remote_->ReadClock(d); }
  Status WriteReg(uint32_t offset, uint32_t value) override { return remote_->WriteReg(offset, value); }
  Result<uint32_t> ReadReg(uint32_t offset) override { return remote_->ReadReg(offset); }
  Result<Capture> Run(const RunPlan& plan) override { return remote_->Run(plan); }

  /// Protocol bytes sent to and received from the agent so far (payloads included).
  uint64_t bytes_sent() const;
  uint64_t bytes_received() const;
  /// Whether the last Deploy() was skipped by the agent (the board held that image already).
  bool last_deploy_skipped() const { return remote_->last_deploy_skipped(); }

  /// The agent's certificate name (as verified).
  const std::string& peer_name() const { return peer_name_; }
  RemoteBoard& remote() { return *remote_; }

  // For tests: sends raw bytes on the protocol stream (an oversized frame header).
  Status TEST_SendRaw(const std::string& bytes);
  // For tests: stops the heartbeats while the connection stays open (a runner host that hung).
  void TEST_StopHeartbeats();

 private:
  struct Conn;
  NetBoard() = default;
  std::unique_ptr<Conn> conn_;
  std::unique_ptr<RemoteBoard> remote_;
  int raw_fd_ = -1;  ///< the protocol end (owned by remote_)
  std::thread bridge_;
  std::string peer_name_;
  void StopHeartbeats();
  std::thread heartbeat_;
  std::mutex hb_mu_;
  std::condition_variable hb_cv_;
  bool hb_stop_ = false;
};

/// For tests: a TLS client that presents no certificate (trusting `ca_file`) handshakes with the
/// agent at host:port and sends one identify frame. Ok when the agent answered it (it must not);
/// the error says how the agent refused (handshake failure, or an alert / close at the read).
Status TEST_ConnectWithoutCertificate(const std::string& host, uint16_t port,
                                      const std::string& ca_file, int timeout_ms);

}  // namespace ctte::lab::net
