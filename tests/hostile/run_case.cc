// Running and judging one hostile case (see run_case.h).
#include "tests/hostile/run_case.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace ctte::hostile {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kKeepBytes = 64 << 10;     // of each stream, for the message check
constexpr size_t kFloodBytes = 1 << 20;     // more output than this is a flood
constexpr rlim_t kMemoryBytes = rlim_t{3} << 30;  // address space per case

bool HasJsonPath(const std::string& text) {
  for (size_t i = text.find('$'); i != std::string::npos; i = text.find('$', i + 1)) {
    if (i + 1 < text.size() && (text[i + 1] == '.' || text[i + 1] == '[' || text[i + 1] == ':')) {
      return true;
    }
  }
  return false;
}

std::string CheckPath(const std::string& dir, const PathCheck& c) {
  const std::string p = c.path.empty() || c.path[0] == '/' ? c.path : dir + "/" + c.path;
  struct stat st {};
  const bool exists = ::lstat(p.c_str(), &st) == 0;
  using K = PathCheck::Kind;
  switch (c.kind) {
    case K::kAbsent:
      return exists ? c.path + " was created" : "";
    case K::kFifo:
      return exists && S_ISFIFO(st.st_mode) ? "" : c.path + " is no longer a FIFO";
    case K::kSymlink:
      return exists && S_ISLNK(st.st_mode) ? "" : c.path + " is no longer a symlink";
    case K::kDirectory:
      return exists && S_ISDIR(st.st_mode) ? "" : c.path + " is no longer a directory";
    case K::kRegular:
      return exists && S_ISREG(st.st_mode) ? "" : c.path + " is not a regular file";
    case K::kCharDevice:
      return exists && S_ISCHR(st.st_mode) ? "" : c.path + " is no longer a character device";
  }
  return "";
}

std::string FirstLine(const std::string& s) {
  std::string line = s.substr(0, s.find('\n'));
  if (line.size() > 160) line = line.substr(0, 157) + "...";
  for (char& ch : line) {
    if (static_cast<unsigned char>(ch) < 0x20) ch = '?';
  }
  return line;
}

}  // namespace

Outcome RunCase(const Case& c, const std::string& dir, int default_timeout_s) {
  Outcome out;
  // Everything the child needs, prepared before fork() (the child only calls async-signal-safe
  // functions until execve).
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) {
    const std::string s = *e;
    if (s.rfind("HOME=", 0) == 0 || s.rfind("TMPDIR=", 0) == 0) continue;
    env_strings.push_back(s);
  }
  env_strings.push_back("HOME=" + dir);
  env_strings.push_back("TMPDIR=" + dir);
  std::vector<char*> envp, argv;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = c.argv;
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);
  const std::string stdin_path = c.stdin_file.empty() ? "/dev/null" : dir + "/" + c.stdin_file;
  const bool drop = c.unprivileged && ::geteuid() == 0;

  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0) {
    out.why = "harness: pipe failed";
    return out;
  }
  const auto start = Clock::now();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    const int in = ::open(stdin_path.c_str(), O_RDONLY);
    if (in >= 0) ::dup2(in, 0);
    ::dup2(out_pipe[1], 1);
    ::dup2(err_pipe[1], 2);
    if (::chdir(dir.c_str()) != 0) ::_exit(125);
    struct rlimit mem {kMemoryBytes, kMemoryBytes};
    ::setrlimit(RLIMIT_AS, &mem);
    struct rlimit core {0, 0};
    ::setrlimit(RLIMIT_CORE, &core);
    if (drop && (::setgid(65534) != 0 || ::setuid(65534) != 0)) ::_exit(125);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  std::string streams[2], tails[2];
  size_t total = 0;
  int status = 0;
  bool exited = false, timed_out = false, flooded = false;
  const int timeout_s = c.timeout_s ? c.timeout_s : default_timeout_s;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  auto deadline = start + std::chrono::seconds(timeout_s);
  int open_fds = 2;
  while (open_fds > 0 || !exited) {
    if (!exited && ::waitpid(pid, &status, WNOHANG) == pid) {
      exited = true;
      // Leftover children (a board) must not keep the pipes open; they are ours to end.
      ::kill(-pid, SIGKILL);
      deadline = std::min(deadline, Clock::now() + std::chrono::seconds(2));
    }
    if (Clock::now() > deadline) {
      if (!exited) timed_out = true;
      break;
    }
    if (open_fds == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      continue;
    }
    ::poll(fds, 2, 20);
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[1 << 16];
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n <= 0) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
        continue;
      }
      total += static_cast<size_t>(n);
      if (streams[i].size() < kKeepBytes) {
        streams[i].append(buf, std::min(static_cast<size_t>(n), kKeepBytes - streams[i].size()));
      } else {  // keep the tail too: summaries come last
        tails[i].append(buf, static_cast<size_t>(n));
        if (tails[i].size() > 2 * kKeepBytes) tails[i].erase(0, tails[i].size() - kKeepBytes);
      }
    }
    if (total > kFloodBytes) {
      flooded = true;
      break;
    }
  }
  ::kill(-pid, SIGKILL);
  if (!exited) ::waitpid(pid, &status, 0);
  for (auto& f : fds) {
    if (f.fd >= 0) ::close(f.fd);
  }
  out.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  const std::string& err = streams[1];
  const std::string text = streams[0] + "\n" + tails[0] + "\n" + streams[1] + "\n" + tails[1];
  out.message = FirstLine(err.find_first_not_of(" \n") != std::string::npos ? err : streams[0]);

  if (flooded) {
    out.why = "flood: more than " + std::to_string(kFloodBytes >> 20) + " MiB of output";
  } else if (timed_out) {
    out.why = "hang: killed after " + std::to_string(timeout_s) + " s";
  } else if (WIFSIGNALED(status)) {
    out.why = "crash: signal " + std::to_string(WTERMSIG(status)) + " (" +
              strsignal(WTERMSIG(status)) + ")";
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
    out.why = "harness: cannot execute " + c.argv[0];
  } else {
    const int code = WEXITSTATUS(status);
    if (std::find(c.exits.begin(), c.exits.end(), code) == c.exits.end()) {
      std::string allowed;
      for (int e : c.exits) allowed += (allowed.empty() ? "" : "/") + std::to_string(e);
      out.why = "exit " + std::to_string(code) + " (allowed " + allowed + ")";
    } else if ((code != 0 || c.locate_always) && !c.locators.empty()) {
      for (const auto& group : c.locators) {
        bool found = false;
        for (const std::string& l : group) {
          if (l == "$" ? HasJsonPath(text) : text.find(l) != std::string::npos) found = true;
        }
        if (!found) {
          std::string ls;
          for (const auto& l : group) ls += (ls.empty() ? "" : " | ") + l;
          out.why = "message names none of: " + ls;
          break;
        }
      }
    }
  }
  if (!out.why.empty()) return out;
  for (const PathCheck& pc : c.after) {
    if (std::string bad = CheckPath(dir, pc); !bad.empty()) {
      out.why = "clobbered: " + bad;
      return out;
    }
  }
  out.why = "exit " + std::to_string(WEXITSTATUS(status));
  out.pass = true;
  return out;
}

}  // namespace ctte::hostile
