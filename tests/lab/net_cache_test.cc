// The board agent's payload cache, heartbeats and lease expiry (lab/net/agent.h,
// lab/payload_cache.h): a second run with the same image and workload transfers only hashes;
// a deploy of the image the board holds is skipped and says so; a corrupted cache entry is
// found by its hash and fetched again; a runner whose heartbeats stop loses its lease (even
// mid-run: the board is reset and freed) and a waiting runner gets the board.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "base/output.h"
#include "base/sha256.h"
#include "lab/payload_cache.h"
#include "regmap/registers.h"
#include "tests/lab/fake_board.h"
#include "tests/lab/net_test_util.h"

namespace ctte::lab::net {
namespace {

// A fake image and workload: random bytes (FakeBoard hashes what it is given, never parses).
struct Payloads {
  explicit Payloads(const std::string& dir) {
    std::mt19937 rng(7);
    image.resize(300'000);
    for (auto& b : image) b = static_cast<uint8_t>(rng());
    std::vector<uint8_t> elf(20'000);
    for (auto& b : elf) b = static_cast<uint8_t>(rng());
    elf_path = dir + "/workload.elf";
    EXPECT_TRUE(WriteOutputFile(elf_path, elf).ok());
    elf_sha = Sha256Hex(std::span<const uint8_t>(elf));
  }
  DeployRequest Request() const {
    DeployRequest d;
    d.name = "fake-image";
    d.bytes = image;
    d.expected_sha256 = Sha256Hex(std::span<const uint8_t>(image));
    return d;
  }
  std::vector<uint8_t> image;
  std::string elf_path, elf_sha;
};

// One session: deploy, run. Returns the protocol bytes sent; *skipped = the agent skipped the
// deploy.
uint64_t DeployAndRun(const Pki& pki, uint16_t port, const Payloads& p, bool* skipped) {
  Result<std::unique_ptr<NetBoard>> b = NetBoard::Connect(ClientOptions(pki, port, "board-a"));
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  if (!b.ok()) return 0;
  Result<DeployReceipt> r = (*b)->Deploy(p.Request());
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (r.ok()) {
    EXPECT_EQ(r->sha256, p.Request().expected_sha256);
  }
  *skipped = (*b)->last_deploy_skipped();
  RunPlan plan;
  plan.workload_elf = p.elf_path;
  plan.ring_bytes = 64;
  Result<Capture> c = (*b)->Run(plan);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return (*b)->bytes_sent();
}

TEST(NetCacheTest, ASecondRunSendsOnlyHashesAndACorruptedEntryIsFetchedAgain) {
  Pki pki;
  const std::string cache = pki.dir() + "/agent-cache";
  FakeBoard board;
  RunningAgent agent(board, pki.Files("board-a"), 1'000, 60'000,
                     [&](AgentOptions& o) { o.cache_dir = cache; });
  Payloads p(pki.dir());
  bool skipped = true;
  const uint64_t first = DeployAndRun(pki, agent.port(), p, &skipped);
  EXPECT_FALSE(skipped);
  EXPECT_GT(first, p.image.size() + 20'000);  // both payloads travelled
  // The workload ran from the agent's cache, named by its hash, not from the runner's path.
  EXPECT_EQ(board.last_plan_.workload_elf, cache + "/" + p.elf_sha);

  const uint64_t second = DeployAndRun(pki, agent.port(), p, &skipped);
  EXPECT_TRUE(skipped);             // the board held that image: the deploy was skipped
  EXPECT_LT(second, 4'000u) << "first run sent " << first;  // hashes and requests only
  EXPECT_GE(agent.agent().cache().hits(), 2u);

  // Corrupt the cached workload: its hash no longer matches, it is dropped and sent again.
  const std::string entry = cache + "/" + p.elf_sha;
  {
    std::fstream f(entry, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(100);
    f.put('\x42');
  }
  const uint64_t third = DeployAndRun(pki, agent.port(), p, &skipped);
  EXPECT_GT(third, 20'000u);
  EXPECT_LT(third, p.image.size());  // the image was still good: only the workload came again
  EXPECT_EQ(agent.agent().cache().corrupted(), 1u);
  Result<std::string> sha = Sha256File(entry);
  ASSERT_TRUE(sha.ok()) << sha.status().ToString();
  EXPECT_EQ(*sha, p.elf_sha);
  const std::string log = agent.log();
  EXPECT_NE(log.find("was corrupted"), std::string::npos) << log;
  EXPECT_NE(log.find("deploy of \"fake-image\" skipped"), std::string::npos) << log;
  EXPECT_NE(log.find("'runner' at 127.0.0.1:"), std::string::npos) << log;
  EXPECT_NE(log.find(": \"run\" (id "), std::string::npos) << log;  // each request, by peer
}

TEST(NetCacheTest, APayloadThatDoesNotMatchItsHashIsRefused) {
  const std::string dir = MakeTempDir();
  Result<std::unique_ptr<PayloadCache>> c = PayloadCache::Open(dir + "/c");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const std::vector<uint8_t> bytes = {1, 2, 3};
  const std::string good = Sha256Hex(std::span<const uint8_t>(bytes));
  const std::string wrong(64, 'a');
  Result<std::string> put = (*c)->Put(wrong, bytes);
  ASSERT_FALSE(put.ok());
  EXPECT_EQ(put.status().code(), Status::Code::kCorruption) << put.status().ToString();
  EXPECT_FALSE((*c)->Put("../etc/passwd", bytes).ok());
  EXPECT_FALSE((*c)->Lookup(good).ok());
  ASSERT_TRUE((*c)->Put(good, bytes).ok());
  Result<std::vector<uint8_t>> back = (*c)->Read(good);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, bytes);
  std::filesystem::remove_all(dir);
}

// The cache's byte budget (#27, bounded resources): storing evicts the least recently used
// entries (a lookup counts as a use) until the new one fits; a payload over the whole budget is
// refused; a restart keeps the order of use and evicts down to a smaller budget at once.
TEST(NetCacheTest, TheBudgetEvictsTheLeastRecentlyUsedAndRefusesWhatCannotFit) {
  const std::string dir = MakeTempDir();
  std::vector<std::vector<uint8_t>> p;
  std::vector<std::string> sha;
  for (uint8_t i = 0; i < 4; ++i) {
    p.emplace_back(1000, i);
    sha.push_back(Sha256Hex(std::span<const uint8_t>(p.back())));
  }
  {
    Result<std::unique_ptr<PayloadCache>> c = PayloadCache::Open(dir + "/c", 3000);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    for (int i = 0; i < 3; ++i) ASSERT_TRUE((*c)->Put(sha[i], p[i]).ok());
    EXPECT_EQ((*c)->bytes(), 3000u);
    ASSERT_TRUE((*c)->Lookup(sha[0]).ok());  // 0 is now the most recently used; 1 the least
    std::vector<std::string> evicted;
    ASSERT_TRUE((*c)->Put(sha[3], p[3], &evicted).ok());
    EXPECT_EQ(evicted, std::vector<std::string>{sha[1]});
    EXPECT_FALSE(std::filesystem::exists(dir + "/c/" + sha[1]));
    EXPECT_FALSE((*c)->Lookup(sha[1]).ok());
    EXPECT_TRUE((*c)->Lookup(sha[0]).ok());
    EXPECT_EQ((*c)->bytes(), 3000u);
    EXPECT_EQ((*c)->evicted(), 1u);
    // Storing a payload it holds again evicts nothing.
    evicted.clear();
    ASSERT_TRUE((*c)->Put(sha[3], p[3], &evicted).ok());
    EXPECT_TRUE(evicted.empty());
    EXPECT_EQ((*c)->bytes(), 3000u);
    // Over the whole budget: refused, nothing evicted.
    const std::vector<uint8_t> big(3001, 7);
    Result<std::string> r = (*c)->Put(Sha256Hex(std::span<const uint8_t>(big)), big);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("payload of 3001 bytes exceeds the cache budget of 3000"),
              std::string::npos)
        << r.status().ToString();
    EXPECT_EQ((*c)->bytes(), 3000u);
    // Used last: 2 (stored), 0 (looked up), 3 (stored again).
    ASSERT_TRUE((*c)->Lookup(sha[2]).ok());  // order now 0, 3, 2
  }
  // A restart with room for two: the least recently used (0) goes at once.
  Result<std::unique_ptr<PayloadCache>> c = PayloadCache::Open(dir + "/c", 2000);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ((*c)->bytes(), 2000u);
  EXPECT_FALSE(std::filesystem::exists(dir + "/c/" + sha[0]));
  EXPECT_TRUE((*c)->Lookup(sha[3]).ok());
  EXPECT_TRUE((*c)->Lookup(sha[2]).ok());
  EXPECT_FALSE(PayloadCache::Open(dir + "/c", 0).ok());
  std::filesystem::remove_all(dir);
}

// A FakeBoard whose Run() takes run_ms (a run in progress when the client vanishes).
class SlowRunBoard : public FakeBoard {
 public:
  explicit SlowRunBoard(int run_ms) : run_ms_(run_ms) {}
  Result<Capture> Run(const RunPlan& plan) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(run_ms_));
    return FakeBoard::Run(plan);
  }

 private:
  int run_ms_;
};

TEST(NetCacheTest, HeartbeatsKeepTheLeaseThroughALongRun) {
  Pki pki;
  SlowRunBoard board(1'500);
  // The lease expires after 600 ms of client silence; the run takes 1.5 s; heartbeats every
  // 200 ms keep the lease.
  RunningAgent agent(board, pki.Files("board-a"), 1'000, /*lease_ms=*/600,
                     [](AgentOptions& o) { o.heartbeat_ms = 100; });
  NetBoardOptions o = ClientOptions(pki, agent.port(), "board-a");
  o.heartbeat_ms = 200;
  o.agent_silence_ms = 1'000;  // shorter than the run: the agent's heartbeats must arrive
  Result<std::unique_ptr<NetBoard>> b = NetBoard::Connect(o);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  Payloads p(pki.dir());
  ASSERT_TRUE((*b)->Deploy(p.Request()).ok());
  RunPlan plan;
  plan.workload_elf = p.elf_path;
  plan.ring_bytes = 64;
  Result<Capture> c = (*b)->Run(plan);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->bytes.size(), 64u);
}

TEST(NetCacheTest, ARunnerWhoseHeartbeatsStopLosesTheLeaseMidRunAndTheBoardIsResetAndFreed) {
  Pki pki;
  SlowRunBoard board(1'500);
  RunningAgent agent(board, pki.Files("board-a"), 1'000, /*lease_ms=*/500);
  NetBoardOptions o = ClientOptions(pki, agent.port(), "board-a");
  o.heartbeat_ms = 100;
  Result<std::unique_ptr<NetBoard>> first = NetBoard::Connect(o);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  Payloads p(pki.dir());
  ASSERT_TRUE((*first)->Deploy(p.Request()).ok());
  ASSERT_TRUE((*first)->WriteReg(reg::kTeControl, 1).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(700));  // heartbeats hold the lease
  {
    // A second runner meanwhile: told who holds the board.
    Result<std::unique_ptr<NetBoard>> second = NetBoard::Connect(o);
    ASSERT_TRUE(second.ok()) << second.status().ToString();
    Result<BoardIdentity> id = (*second)->Identify();
    ASSERT_FALSE(id.ok());
    EXPECT_NE(id.status().message().find("busy: leased by runner since 20"), std::string::npos)
        << id.status().ToString();
  }
  // The first runner's host hangs mid-run: its heartbeats stop, the connection stays open.
  (*first)->TEST_StopHeartbeats();
  RunPlan plan;
  plan.workload_elf = p.elf_path;
  plan.ring_bytes = 64;
  Result<Capture> c = (*first)->Run(plan);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(ClassifyFailure(c.status()), FailureKind::kBoardDied) << c.status().ToString();
  // The lease expired: the second runner gets the board, reset.
  Result<std::unique_ptr<NetBoard>> second = NetBoard::Connect(o);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  Result<BoardIdentity> id = (*second)->Identify();
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  Result<uint32_t> control = (*second)->ReadReg(reg::kTeControl);
  ASSERT_TRUE(control.ok()) << control.status().ToString();
  EXPECT_EQ(*control, 0u);
  EXPECT_GE(agent.agent().resets(), 1u);
  const std::string log = agent.log();
  EXPECT_NE(log.find("lease expired: no byte (request or heartbeat) from the peer for 500 ms"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("board reset (trTeControl = 0)"), std::string::npos) << log;
}

}  // namespace
}  // namespace ctte::lab::net
