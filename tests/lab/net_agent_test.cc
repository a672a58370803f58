// The TLS board agent and NetBoard on 127.0.0.1 (lab/net/): a good client identifies, deploys
// and runs a short workload through the agent; peers that fail the handshake (no client
// certificate, another CA, plain TCP, garbage, silence), an oversized frame header and an agent
// certificate naming another board are refused and logged, and the agent still serves a good
// client after each. A silent agent is kBoardTimeout, a dropped connection kBoardDied.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <thread>

#include "lab/image_manifest.h"
#include "lab/net/agent.h"
#include "lab/net/net_board.h"
#include "lab/net/pki.h"
#include "lab/sim/sim_board.h"
#include "tests/lab/fake_board.h"
#include "tests/lab/net_test_util.h"

namespace ctte::lab::net {
namespace {

const std::string kImages = CTTE_BINARY_DIR "/images/";
const std::string kWorkloads = CTTE_BINARY_DIR "/workloads/";

// A Board whose Identify() takes delay_ms (for timeouts and idle drops).
class SlowBoard : public FakeBoard {
 public:
  explicit SlowBoard(int delay_ms) : delay_ms_(delay_ms) {}
  Result<BoardIdentity> Identify() override {
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms_));
    return FakeBoard::Identify();
  }

 private:
  int delay_ms_;
};

void ExpectGoodClientWorks(const Pki& pki, uint16_t port) {
  Result<std::unique_ptr<NetBoard>> b = NetBoard::Connect(ClientOptions(pki, port, "board-a"));
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ((*b)->peer_name(), "board-a");
  Result<BoardIdentity> id = (*b)->Identify();
  ASSERT_TRUE(id.ok()) << id.status().ToString();
}

TEST(NetAgentTest, IssuedFilesAreKeyedAndNeverOverwritten) {
  Pki pki;
  struct stat st{};
  ASSERT_EQ(::stat(pki.Files("runner").key.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(::stat((pki.ca() + "/ca.key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  const Status again = IssueCertificate("runner", pki.ca(), pki.dir() + "/certs", IssueOptions{});
  EXPECT_FALSE(again.ok());
  EXPECT_NE(again.message().find("refusing to overwrite"), std::string::npos) << again.message();
  EXPECT_FALSE(InitCa(pki.ca()).ok());
  EXPECT_FALSE(IssueCertificate("bad name/..", pki.ca(), pki.dir(), IssueOptions{}).ok());
}

TEST(NetAgentImageTest, GoodClientDeploysAndRunsAWorkload) {
  if (!std::filesystem::exists(kImages + "ntrace-slim.manifest.json") ||
      !std::filesystem::exists(kWorkloads + "loop.elf")) {
    GTEST_SKIP() << "images or workloads not built";
  }
  Pki pki;
  Result<std::unique_ptr<SimBoard>> sim = SimBoard::Create({});
  ASSERT_TRUE(sim.ok()) << sim.status().ToString();
  RunningAgent agent(**sim, pki.Files("board-a"));
  Result<std::unique_ptr<NetBoard>> b = NetBoard::Connect(ClientOptions(pki, agent.port(), "board-a"));
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  Result<BoardIdentity> id = (*b)->Identify();
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  Result<ImageManifest> m = ImageManifest::Load(kImages + "ntrace-slim.manifest.json");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  Result<DeployReceipt> r = (*b)->Deploy(m->ToDeployRequest());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->sha256, m->sha256);
  ASSERT_TRUE((*b)->SetClock(ClockDomain::kFabric, 93'750'000).ok());
  RunPlan plan;
  plan.workload_elf = kWorkloads + "loop.elf";
  plan.iss.max_instructions = 20'000;
  Result<Capture> c = (*b)->Run(plan);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_GT(c->bytes.size(), 0u);
  EXPECT_TRUE(c->drained);
  EXPECT_EQ(agent.agent().sessions(), 1u);
  b->reset();
  const std::string log = agent.log();
  EXPECT_NE(log.find("client 'runner' at 127.0.0.1:"), std::string::npos) << log;
}

TEST(NetAgentTest, BadPeersAreDroppedAndLoggedAndTheAgentKeepsServing) {
  Pki pki;
  FakeBoard board;
  RunningAgent agent(board, pki.Files("board-a"), /*handshake_ms=*/500);
  const uint16_t port = agent.port();
  ExpectGoodClientWorks(pki, port);
  uint64_t refused = 0;

  // Plain TCP speaking the board protocol (or anything else) without TLS.
  static constexpr char kPlainFrame[] = "CTB1\x0e\0\0\0\0\0\0\0{\"v\":1,\"id\":1}";
  PlainTcp(port, std::string(kPlainFrame, sizeof kPlainFrame - 1));
  EXPECT_TRUE(agent.WaitRefused(++refused));
  ExpectGoodClientWorks(pki, port);
  // Garbage bytes.
  PlainTcp(port, std::string(300, '\xff'));
  EXPECT_TRUE(agent.WaitRefused(++refused));
  ExpectGoodClientWorks(pki, port);
  // A silent peer: dropped after the handshake timeout.
  PlainTcp(port, "");
  EXPECT_TRUE(agent.WaitRefused(++refused));
  ExpectGoodClientWorks(pki, port);

  // A TLS client without a certificate: the handshake fails (TLS 1.2), or the agent's alert
  // ends the connection before any request is answered (TLS 1.3).
  {
    const Status s = TEST_ConnectWithoutCertificate("127.0.0.1", port, pki.ca() + "/ca.crt", 5'000);
    EXPECT_FALSE(s.ok());
    EXPECT_EQ(s.code(), Status::Code::kUnavailable) << s.ToString();
    EXPECT_TRUE(agent.WaitRefused(++refused));
    // NetBoard itself never connects without a certificate.
    NetBoardOptions o = ClientOptions(pki, port, "board-a");
    o.tls.cert = o.tls.key = "";
    EXPECT_FALSE(NetBoard::Connect(o).ok());
  }
  ExpectGoodClientWorks(pki, port);
  // A client certificate from another CA.
  {
    NetBoardOptions o = ClientOptions(pki, port, "board-a");
    o.tls = pki.ForeignRunner();
    Result<std::unique_ptr<NetBoard>> b = NetBoard::Connect(o);
    if (b.ok()) {
      Result<BoardIdentity> id = (*b)->Identify();
      EXPECT_FALSE(id.ok());
      EXPECT_EQ(ClassifyFailure(id.status()), FailureKind::kBoardDied) << id.status().ToString();
    }
    EXPECT_TRUE(agent.WaitRefused(++refused));
  }
  ExpectGoodClientWorks(pki, port);

  // An oversized frame header inside a good TLS session: the protocol refuses it, the session
  // ends, the agent goes on.
  {
    Result<std::unique_ptr<NetBoard>> b = NetBoard::Connect(ClientOptions(pki, port, "board-a"));
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    const uint32_t big = (1u << 20) + 1;
    std::string prefix("CTB1", 4);
    for (int i = 0; i < 4; ++i) prefix.push_back(static_cast<char>((big >> (8 * i)) & 0xff));
    prefix.append(4, '\0');
    ASSERT_TRUE((*b)->TEST_SendRaw(prefix).ok());
    Result<BoardIdentity> id = (*b)->Identify();
    EXPECT_FALSE(id.ok());
  }
  ExpectGoodClientWorks(pki, port);

  // The agent's certificate names another board than the one expected.
  {
    Result<std::unique_ptr<NetBoard>> b = NetBoard::Connect(ClientOptions(pki, port, "board-b"));
    ASSERT_FALSE(b.ok());
    const std::string msg = b.status().message();
    EXPECT_NE(msg.find("'board-a'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'board-b'"), std::string::npos) << msg;
  }
  ExpectGoodClientWorks(pki, port);

  const std::string log = agent.log();
  EXPECT_NE(log.find("dropped 127.0.0.1:"), std::string::npos) << log;
  EXPECT_NE(log.find("TLS handshake failed"), std::string::npos) << log;
  EXPECT_NE(log.find("no TLS handshake within 500 ms"), std::string::npos) << log;
}

TEST(NetAgentTest, ASecondClientIsToldWhoHoldsTheLease) {
  Pki pki;
  FakeBoard board;
  RunningAgent agent(board, pki.Files("board-a"));
  Result<std::unique_ptr<NetBoard>> a = NetBoard::Connect(ClientOptions(pki, agent.port(), "board-a"));
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_TRUE((*a)->Identify().ok());
  const auto t0 = std::chrono::steady_clock::now();
  {
    Result<std::unique_ptr<NetBoard>> b =
        NetBoard::Connect(ClientOptions(pki, agent.port(), "board-a"));
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    Result<BoardIdentity> id = (*b)->Identify();
    ASSERT_FALSE(id.ok());
    EXPECT_EQ(id.status().code(), Status::Code::kUnavailable) << id.status().ToString();
    EXPECT_NE(id.status().message().find("busy: leased by runner since 20"), std::string::npos)
        << id.status().ToString();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  EXPECT_EQ(agent.agent().busy(), 1u);
  ASSERT_TRUE((*a)->Identify().ok());  // the holder is undisturbed
  a->reset();                          // disconnecting ends the lease
  ExpectGoodClientWorks(pki, agent.port());
  const std::string log = agent.log();
  EXPECT_NE(log.find("lease released"), std::string::npos) << log;
}

TEST(NetAgentTest, AnAgentWithAnotherCaIsRefused) {
  Pki pki;
  FakeBoard board;
  RunningAgent agent(board, pki.Files("board-a"));
  NetBoardOptions o = ClientOptions(pki, agent.port(), "board-a");
  o.tls.ca = pki.dir() + "/other-ca/ca.crt";
  o.tls.cert = pki.dir() + "/other/runner.crt";
  o.tls.key = pki.dir() + "/other/runner.key";
  Result<std::unique_ptr<NetBoard>> b = NetBoard::Connect(o);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("not from the lab CA"), std::string::npos)
      << b.status().ToString();
  ExpectGoodClientWorks(pki, agent.port());
}

TEST(NetAgentTest, SilentAgentIsTimeoutAndDroppedConnectionIsBoardDied) {
  Pki pki;
  SlowBoard board(1'500);
  {
    RunningAgent agent(board, pki.Files("board-a"));
    NetBoardOptions o = ClientOptions(pki, agent.port(), "board-a");
    o.remote.request_timeout_ms = 300;
    Result<std::unique_ptr<NetBoard>> b = NetBoard::Connect(o);
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    Result<BoardIdentity> id = (*b)->Identify();
    ASSERT_FALSE(id.ok());
    EXPECT_EQ(ClassifyFailure(id.status()), FailureKind::kBoardTimeout) << id.status().ToString();
  }
  {
    // The agent drops an idle session (300 ms) while the board is still busy.
    RunningAgent agent(board, pki.Files("board-a"), 1'000, /*idle_ms=*/300);
    Result<std::unique_ptr<NetBoard>> b = NetBoard::Connect(ClientOptions(pki, agent.port(), "board-a"));
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    Result<BoardIdentity> id = (*b)->Identify();
    ASSERT_FALSE(id.ok());
    EXPECT_EQ(ClassifyFailure(id.status()), FailureKind::kBoardDied) << id.status().ToString();
  }
}

}  // namespace
}  // namespace ctte::lab::net
