// Helpers of the lab/net tests: a temporary lab PKI (a CA, another CA, board and runner
// certificates), an agent serving a Board on an ephemeral 127.0.0.1 port on its own thread with
// its log captured, and NetBoard options for a runner.
#pragma once

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "lab/net/agent.h"
#include "lab/net/net_board.h"
#include "lab/net/pki.h"

namespace ctte::lab::net {

inline std::string MakeTempDir() {
  std::string t = ::testing::TempDir() + "ctte_net_XXXXXX";
  char* d = ::mkdtemp(t.data());
  return d != nullptr ? std::string(d) : std::string();
}

class Pki {
 public:
  Pki() : dir_(MakeTempDir()), own_(dir_) {
    ca_ = dir_ + "/ca";
    EXPECT_TRUE(InitCa(ca_).ok());
    for (const char* n : {"board-a", "board-b"}) {
      EXPECT_TRUE(IssueCertificate(n, ca_, dir_ + "/certs", IssueOptions{.role = Role::kBoard}).ok());
    }
    EXPECT_TRUE(IssueCertificate("runner", ca_, dir_ + "/certs", IssueOptions{}).ok());
    MakeOtherCa(dir_);
  }
  /// An existing lab folder (`lab init-ca LAB/ca`, certificates in LAB/certs, as
  /// tests/net/net_lab.sh makes it); the other CA goes to a temporary folder of our own.
  explicit Pki(const std::string& lab_dir) : dir_(lab_dir), own_(MakeTempDir()) {
    ca_ = dir_ + "/ca";
    MakeOtherCa(own_);
  }
  ~Pki() {
    std::error_code ec;
    std::filesystem::remove_all(own_, ec);
  }
  TlsFiles Files(const std::string& name) const { return IssuedFiles(name, ca_, dir_ + "/certs"); }
  /// A runner certificate from another CA (but trusting the lab CA, so only the agent refuses).
  TlsFiles ForeignRunner() const {
    TlsFiles f = IssuedFiles("runner", other_, other_certs_);
    f.ca = ca_ + "/ca.crt";
    return f;
  }
  const std::string& dir() const { return dir_; }
  const std::string& ca() const { return ca_; }

 private:
  void MakeOtherCa(const std::string& in) {
    other_ = in + "/other-ca";
    other_certs_ = in + "/other";
    EXPECT_TRUE(InitCa(other_).ok());
    EXPECT_TRUE(IssueCertificate("runner", other_, other_certs_, IssueOptions{}).ok());
  }
  std::string dir_, own_, ca_, other_, other_certs_;
};

class RunningAgent {
 public:
  RunningAgent(Board& board, const TlsFiles& files, int handshake_ms = 1'000,
               int idle_ms = 60'000, const std::function<void(AgentOptions&)>& tweak = {}) {
    AgentOptions o;
    o.tls = files;
    o.handshake_timeout_ms = handshake_ms;
    o.lease_timeout_ms = idle_ms;
    if (tweak) tweak(o);
    o.log = [this](LogLevel, const std::string& line) {
      std::lock_guard<std::mutex> l(mu_);
      log_ += line + "\n";
    };
    Result<std::unique_ptr<Agent>> a = Agent::Listen(board, o);
    EXPECT_TRUE(a.ok()) << a.status().ToString();
    if (!a.ok()) return;
    agent_ = std::move(*a);
    thread_ = std::thread([this] { EXPECT_TRUE(agent_->Serve().ok()); });
  }
  ~RunningAgent() {
    if (agent_ != nullptr) agent_->Stop();
    if (thread_.joinable()) thread_.join();
  }
  Agent& agent() { return *agent_; }
  uint16_t port() const { return agent_->port(); }
  std::string log() {
    std::lock_guard<std::mutex> l(mu_);
    return log_;
  }
  /// Waits (bounded) until the agent has refused `n` peers.
  bool WaitRefused(uint64_t n) {
    for (int i = 0; i < 500 && agent_->refused() < n; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return agent_->refused() >= n;
  }

 private:
  std::unique_ptr<Agent> agent_;
  std::thread thread_;
  std::mutex mu_;
  std::string log_;
};

inline NetBoardOptions ClientOptions(const Pki& pki, uint16_t port, const std::string& expected) {
  NetBoardOptions o;
  o.port = port;
  o.expected_name = expected;
  o.tls = pki.Files("runner");
  o.connect_timeout_ms = 5'000;
  o.remote.request_timeout_ms = 5'000;
  return o;
}

// A plain TCP connection to the agent that sends `bytes` and waits for the agent to close it.
inline void PlainTcp(uint16_t port, const std::string& bytes) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  if (!bytes.empty()) (void)::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  timeval tv{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  char buf[4096];
  while (::recv(fd, buf, sizeof buf, 0) > 0) {
  }
  ::close(fd);
}

}  // namespace ctte::lab::net
