// RemoteBoard supervising a real `ctte-board --stdio --test-ops` child: a board that aborts,
// is killed or hangs is reported with a distinct failure kind, the parent carries on, and a
// respawned board works.
#include "lab/remote_board.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

namespace ctte::lab {
namespace {

RemoteBoardOptions ChildOptions() {
  RemoteBoardOptions o;
  o.board_path = CTTE_BINARY_DIR "/bin/ctte-board";
  o.args = {"--stdio", "--test-ops"};
  o.request_timeout_ms = 10'000;
  return o;
}

TEST(RemoteBoardTest, SpawnedBoardAnswersAndShutsDown) {
  Result<std::unique_ptr<RemoteBoard>> b = RemoteBoard::Spawn(ChildOptions());
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  Result<BoardIdentity> id = (*b)->Identify();
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  EXPECT_EQ(id->kind, "remote:sim");
  EXPECT_EQ(*(*b)->ReadClock(ClockDomain::kFabric), 100'000'000u);
  EXPECT_EQ(*(*b)->SetClock(ClockDomain::kFabric, 160'000'000), 150'000'000u);
  EXPECT_EQ(*(*b)->ReadClock(ClockDomain::kFabric), 150'000'000u);
  Result<uint32_t> r = (*b)->ReadReg(0);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no image deployed"), std::string::npos);
  EXPECT_TRUE((*b)->Shutdown().ok());
  EXPECT_FALSE((*b)->alive());
}

TEST(RemoteBoardTest, AbortingBoardIsReportedAndParentRespawns) {
  Result<std::unique_ptr<RemoteBoard>> b = RemoteBoard::Spawn(ChildOptions());
  ASSERT_TRUE(b.ok());
  RemoteBoard& board = **b;
  const Status s = board.TEST_Request("TEST_abort", 10'000);
  EXPECT_EQ(ClassifyFailure(s), FailureKind::kBoardDied) << s.ToString();
  EXPECT_NE(s.message().find("signal 6 (SIGABRT)"), std::string::npos) << s.message();
  EXPECT_FALSE(board.alive());
  // Later calls keep saying why, without hanging or crashing.
  Result<BoardIdentity> id = board.Identify();
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(ClassifyFailure(id.status()), FailureKind::kBoardDied);
  EXPECT_NE(id.status().message().find("Respawn"), std::string::npos);
  ASSERT_TRUE(board.Respawn().ok());
  id = board.Identify();
  ASSERT_TRUE(id.ok()) << id.status().ToString();
}

TEST(RemoteBoardTest, KilledBoardIsReportedWithItsSignal) {
  Result<std::unique_ptr<RemoteBoard>> b = RemoteBoard::Spawn(ChildOptions());
  ASSERT_TRUE(b.ok());
  ASSERT_TRUE((*b)->Identify().ok());
  ASSERT_EQ(::kill((*b)->pid(), SIGKILL), 0);
  Result<uint64_t> hz = (*b)->ReadClock(ClockDomain::kSink);
  ASSERT_FALSE(hz.ok());
  EXPECT_EQ(ClassifyFailure(hz.status()), FailureKind::kBoardDied);
  EXPECT_NE(hz.status().message().find("signal 9 (SIGKILL)"), std::string::npos)
      << hz.status().message();
}

TEST(RemoteBoardTest, ExitingBoardIsReportedWithItsStatus) {
  Result<std::unique_ptr<RemoteBoard>> b = RemoteBoard::Spawn(ChildOptions());
  ASSERT_TRUE(b.ok());
  const Status s = (*b)->TEST_Request("TEST_exit", 10'000);
  EXPECT_EQ(ClassifyFailure(s), FailureKind::kBoardDied);
  EXPECT_NE(s.message().find("exit status 3"), std::string::npos) << s.message();
}

TEST(RemoteBoardTest, HungBoardTimesOutIsKilledAndCanBeReplaced) {
  Result<std::unique_ptr<RemoteBoard>> b = RemoteBoard::Spawn(ChildOptions());
  ASSERT_TRUE(b.ok());
  const Status s = (*b)->TEST_Request("TEST_hang", 300);
  EXPECT_EQ(ClassifyFailure(s), FailureKind::kBoardTimeout) << s.ToString();
  EXPECT_NE(s.message().find("board timeout after 0.3 s"), std::string::npos) << s.message();
  EXPECT_FALSE((*b)->alive());
  ASSERT_TRUE((*b)->Respawn().ok());
  EXPECT_TRUE((*b)->Identify().ok());
}

TEST(RemoteBoardTest, MissingExecutableIsNotFound) {
  RemoteBoardOptions o = ChildOptions();
  o.board_path = "/nonexistent/ctte-board";
  Result<std::unique_ptr<RemoteBoard>> b = RemoteBoard::Spawn(o);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), Status::Code::kNotFound);
}

TEST(RemoteBoardTest, UnixSocketServerServesAClientAndShutsDown) {
  const std::string path = "/tmp/ctte-lab-test-" + std::to_string(::getpid()) + ".sock";
  std::string exe = CTTE_BINARY_DIR "/bin/ctte-board", flag = "--unix", p = path;
  char* argv[] = {exe.data(), flag.data(), p.data(), nullptr};
  pid_t pid = -1;
  ASSERT_EQ(::posix_spawn(&pid, exe.c_str(), nullptr, nullptr, argv, environ), 0);
  int fd = -1;
  for (int i = 0; i < 200 && fd < 0; ++i) {  // wait for the socket to appear
    fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      ::close(fd);
      fd = -1;
      ::usleep(10'000);
    }
  }
  ASSERT_GE(fd, 0) << "ctte-board --unix never listened on " << path;
  std::unique_ptr<RemoteBoard> b = RemoteBoard::Connect(fd, RemoteBoardOptions{});
  Result<BoardIdentity> id = b->Identify();
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  EXPECT_EQ(id->kind, "remote:sim");
  EXPECT_TRUE(b->Shutdown().ok());
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

}  // namespace
}  // namespace ctte::lab
