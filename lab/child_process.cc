// ChildProcess: fork/exec with a socketpair for the protocol, a pipe for stderr (see
// child_process.h).
#include "lab/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ctte::lab {

namespace {
constexpr size_t kStderrKeepBytes = 16 * 1024;

std::string DescribeWait(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* abbrev = sigabbrev_np(sig);
    return "signal " + std::to_string(sig) + " (SIG" + (abbrev ? abbrev : "?") + ")";
  }
  if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
  return "wait status " + std::to_string(status);
}
}  // namespace

Result<std::unique_ptr<ChildProcess>> ChildProcess::Start(const std::vector<std::string>& argv_s,
                                                          int* stream_fd) {
  if (argv_s.empty()) return Status::InvalidArgument("child process: empty argv");
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    return Status::IOError(std::string("socketpair: ") + std::strerror(errno));
  }
  int ep[2];
  if (::pipe2(ep, O_CLOEXEC) != 0) {
    ::close(sv[0]);
    ::close(sv[1]);
    return Status::IOError(std::string("pipe: ") + std::strerror(errno));
  }
  std::vector<std::string> args = argv_s;
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  const pid_t pid = ::fork();
  if (pid < 0) {
    for (int fd : {sv[0], sv[1], ep[0], ep[1]}) ::close(fd);
    return Status::IOError(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {  // child: only async-signal-safe calls until exec
    ::dup2(sv[1], 0);
    ::dup2(sv[1], 1);
    ::dup2(ep[1], 2);
    ::execv(argv[0], argv.data());
    const char msg[] = "ctte-board: exec failed\n";
    (void)!::write(2, msg, sizeof msg - 1);
    ::_exit(127);
  }
  ::close(sv[1]);
  ::close(ep[1]);
  std::unique_ptr<ChildProcess> c(new ChildProcess());
  c->pid_ = pid;
  const int efd = ep[0];
  ChildProcess* self = c.get();
  c->stderr_thread_ = std::thread([self, efd] {
    char buf[4096];
    for (;;) {
      const ssize_t n = ::read(efd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      std::lock_guard<std::mutex> lock(self->stderr_mu_);
      self->stderr_buf_.append(buf, static_cast<size_t>(n));
      if (self->stderr_buf_.size() > kStderrKeepBytes) {
        self->stderr_buf_.erase(0, self->stderr_buf_.size() - kStderrKeepBytes);
      }
    }
    ::close(efd);
  });
  *stream_fd = sv[0];
  return c;
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0 || stderr_thread_.joinable()) (void)Wait(/*kill_first=*/true);
}

std::string ChildProcess::Wait(bool kill_first) {
  if (pid_ > 0) {
    if (kill_first) ::kill(pid_, SIGKILL);
    int status = 0;
    pid_t r = 0;
    // A child that closed its stream is normally gone at once; give it 2 s, then kill it.
    for (int i = 0; i < 200; ++i) {
      r = ::waitpid(pid_, &status, WNOHANG);
      if (r != 0) break;
      ::usleep(10'000);
    }
    if (r == 0) {
      ::kill(pid_, SIGKILL);
      r = ::waitpid(pid_, &status, 0);
    }
    how_ = r == pid_ ? DescribeWait(status) : std::string("lost track of the child");
    pid_ = -1;
  }
  if (stderr_thread_.joinable()) stderr_thread_.join();
  return how_;
}

std::string ChildProcess::StderrTail(size_t lines_wanted) const {
  std::string text;
  {
    std::lock_guard<std::mutex> lock(stderr_mu_);
    text = stderr_buf_;
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  size_t pos = text.size();
  for (size_t lines = 0; lines < lines_wanted && pos != std::string::npos;) {
    pos = pos == 0 ? std::string::npos : text.rfind('\n', pos - 1);
    ++lines;
  }
  std::string tail = pos == std::string::npos ? text : text.substr(pos + 1);
  for (char& c : tail) {
    if (c == '\n') c = '|';
  }
  return tail.empty() ? "(empty)" : tail;
}

}  // namespace ctte::lab
