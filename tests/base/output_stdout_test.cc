// OutputFileWriter on standard output ("-"): the same bytes as a file through a pipe, resumed
// across short writes and EINTR; a reader that closes the pipe is a quiet stop, not a SIGPIPE
// death; a closed or full standard output is a clear error. Each case runs in a forked child
// whose fd 1 is the pipe (or /dev/full, or closed).
#include <fcntl.h>
#include <signal.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/files.h"
#include "base/output.h"

namespace ctte {
namespace {

namespace fs = std::filesystem;

// PCs like a trace's: runs of consecutive instructions, jumps, a few non-8-digit values.
std::vector<uint64_t> SomePcs(size_t n) {
  std::vector<uint64_t> v;
  uint64_t pc = 0x80000000;
  for (size_t i = 0; i < n; ++i) {
    pc = (i % 37 == 0) ? 0x80000000 + (i * 2654435761u) % 0x100000 : pc + 4;
    v.push_back(i % 1001 == 0 ? i : pc);
  }
  return v;
}

struct ChildResult {
  int status = 0;       // waitpid status
  std::string output;   // what the parent read from the pipe
};

// Runs `child` in a forked process whose fd 1 is a pipe's write end; the parent reads up to
// `read_limit` bytes (then closes its end), sleeping `pause_us` between 64 KiB reads. The child's
// return value is its exit status.
ChildResult RunWithStdoutPipe(const std::function<int()>& child, size_t read_limit,
                              useconds_t pause_us = 0) {
  int fds[2];
  if (::pipe(fds) != 0) return {-1, ""};
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    ::dup2(fds[1], STDOUT_FILENO);
    ::close(fds[1]);
    ::_exit(child());
  }
  ::close(fds[1]);
  ChildResult r;
  std::vector<char> buf(64 << 10);
  while (r.output.size() < read_limit) {
    const size_t want = std::min(buf.size(), read_limit - r.output.size());
    const ssize_t n = ::read(fds[0], buf.data(), want);
    if (n <= 0) break;
    r.output.append(buf.data(), static_cast<size_t>(n));
    if (pause_us > 0) ::usleep(pause_us);
  }
  ::close(fds[0]);
  ::waitpid(pid, &r.status, 0);
  return r;
}

std::atomic<int> g_alarms{0};
void CountAlarm(int) { g_alarms.fetch_add(1, std::memory_order_relaxed); }

TEST(OutputStdoutTest, PipeGetsTheFileBytesAcrossShortWritesAndEintr) {
  const std::vector<uint64_t> pcs = SomePcs(600000);  // ~6.6 MB: six chunks and more
  const fs::path file = fs::temp_directory_path() / ("ctte_stdout_" + std::to_string(::getpid()));
  {
    Result<std::unique_ptr<OutputFileWriter>> w = OutputFileWriter::Open(file.string());
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    (*w)->AppendHexLines(pcs.data(), pcs.size());
    ASSERT_TRUE((*w)->Commit().ok());
  }
  Result<std::string> want = ReadFileText(file.string());
  fs::remove(file);
  ASSERT_TRUE(want.ok());
  // The child is interrupted every 200 us by a handler without SA_RESTART while the parent reads
  // slowly, so its 1 MiB writes to the 64 KiB pipe come back short or with EINTR.
  const ChildResult r = RunWithStdoutPipe(
      [&] {
        struct sigaction sa {};
        sa.sa_handler = CountAlarm;
        ::sigaction(SIGALRM, &sa, nullptr);
        const itimerval every{{0, 200}, {0, 200}};
        ::setitimer(ITIMER_REAL, &every, nullptr);
        Result<std::unique_ptr<OutputFileWriter>> w = OutputFileWriter::Open("-");
        if (!w.ok()) return 10;
        (*w)->AppendHexLines(pcs.data(), pcs.size());
        if (!(*w)->Commit().ok()) return 11;
        const itimerval off{};
        ::setitimer(ITIMER_REAL, &off, nullptr);
        return g_alarms.load() > 0 ? 0 : 12;  // 12: no signal arrived, the test proved nothing
      },
      ~size_t{0}, 300);
  ASSERT_TRUE(WIFEXITED(r.status)) << r.status;
  EXPECT_EQ(WEXITSTATUS(r.status), 0);
  EXPECT_EQ(r.output.size(), want->size());
  EXPECT_TRUE(r.output == *want) << "standard output differs from the file";
}

TEST(OutputStdoutTest, ReaderClosingThePipeIsAQuietStop) {
  const std::vector<uint64_t> pcs = SomePcs(4096);
  const auto writer_child = [&] {
    Result<std::unique_ptr<OutputFileWriter>> w = OutputFileWriter::Open("-");
    if (!w.ok()) return 10;
    for (int i = 0; i < 2000 && !(*w)->reader_closed(); ++i) {  // ~90 MB unless stopped
      (*w)->AppendHexLines(pcs.data(), pcs.size());
    }
    if (!(*w)->reader_closed()) return 11;
    return (*w)->Commit().ok() ? 0 : 12;
  };
  const ChildResult r = RunWithStdoutPipe(writer_child, 100);
  ASSERT_TRUE(WIFEXITED(r.status)) << "killed by signal " << WTERMSIG(r.status);
  EXPECT_EQ(WEXITSTATUS(r.status), 0);
  EXPECT_EQ(r.output.substr(0, 4), "0x0\n");  // SomePcs starts with 0
  // The same reader kills a plain writer with SIGPIPE: the early close really happens.
  const ChildResult plain = RunWithStdoutPipe(
      [] {
        const std::string line(1 << 16, 'x');
        for (int i = 0; i < 2000; ++i) {
          if (::write(STDOUT_FILENO, line.data(), line.size()) < 0) return 20;
        }
        return 21;
      },
      100);
  ASSERT_TRUE(WIFSIGNALED(plain.status)) << plain.status;
  EXPECT_EQ(WTERMSIG(plain.status), SIGPIPE);
}

// Runs `child` with fd 1 set up by `setup` (in the child); returns its exit status.
int RunChild(const std::function<void()>& setup, const std::function<int()>& child) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    setup();
    ::_exit(child());
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

TEST(OutputStdoutTest, ClosedStandardOutputIsRefusedAtOpen) {
  EXPECT_EQ(RunChild([] { ::close(STDOUT_FILENO); },
                     [] {
                       Result<std::unique_ptr<OutputFileWriter>> w = OutputFileWriter::Open("-");
                       if (w.ok()) return 1;
                       return w.status().message() == "standard output is closed" ? 0 : 2;
                     }),
            0);
}

TEST(OutputStdoutTest, FullStandardOutputIsAnErrorAtCommit) {
  EXPECT_EQ(RunChild(
                [] {
                  const int fd = ::open("/dev/full", O_WRONLY);
                  ::dup2(fd, STDOUT_FILENO);
                },
                [] {
                  Result<std::unique_ptr<OutputFileWriter>> w = OutputFileWriter::Open("-");
                  if (!w.ok()) return 1;
                  (*w)->AppendHexLine(0x80000000);
                  const Status s = (*w)->Commit();
                  if (s.ok() || (*w)->reader_closed()) return 2;
                  return s.message() == "standard output: write failed: no space left on device"
                             ? 0
                             : 3;
                }),
            0);
}

TEST(OutputStdoutTest, DashIsNeverAFileNamedDash) {
  const fs::path dir = fs::temp_directory_path() / ("ctte_dash_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const ChildResult r = RunWithStdoutPipe(
      [&] {
        if (::chdir(dir.c_str()) != 0) return 10;
        Result<std::unique_ptr<OutputFileWriter>> w = OutputFileWriter::Open("-");
        if (!w.ok()) return 11;
        (*w)->Append("hello\n");
        return (*w)->Commit().ok() ? 0 : 12;
      },
      ~size_t{0});
  EXPECT_TRUE(fs::is_empty(dir)) << "a file appeared in " << dir;
  fs::remove_all(dir);
  ASSERT_TRUE(WIFEXITED(r.status));
  EXPECT_EQ(WEXITSTATUS(r.status), 0);
  EXPECT_EQ(r.output, "hello\n");
}

}  // namespace
}  // namespace ctte
