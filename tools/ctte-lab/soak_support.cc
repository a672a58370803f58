// Helpers of `ctte-lab soak` (see soak_support.h).
#include "tools/ctte-lab/soak_support.h"

#include <pthread.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace ctte::cli {

std::string ShellQuote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                        "0123456789-_./=:+,@%") == std::string::npos) {
    return s;
  }
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

/// Output paths (the rule in docs/soak.md, "Output paths"): the default paths create a missing
/// out/; an explicit --db or --report-dir needs its parent folder to exist already. The report
/// folder itself is created and must be writable before the first run.
Status CheckOutputPaths(const std::string& db_path, const std::string& report_dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto parent_of = [](const std::string& path) {
    fs::path p = fs::path(path).parent_path();
    return p.empty() ? fs::path(".") : p;
  };
  const auto need_parent = [&](const std::string& what, const std::string& path,
                               bool is_default) -> Status {
    const fs::path parent = parent_of(path);
    if (fs::is_directory(parent, ec)) return Status::Ok();
    if (fs::exists(parent, ec)) {
      return Status::InvalidArgument(what + " " + path + ": " + parent.string() +
                                     " is not a folder");
    }
    if (!is_default) {
      return Status::InvalidArgument(what + " " + path + ": the folder " + parent.string() +
                                     " does not exist (create it first; only the default out/ "
                                     "is created)");
    }
    fs::create_directories(parent, ec);
    if (ec) return Status::IOError(parent.string() + ": " + ec.message());
    return Status::Ok();
  };
  if (fs::exists(db_path, ec) && !fs::is_regular_file(db_path, ec)) {
    return Status::InvalidArgument("--db " + db_path + ": not a regular file");
  }
  CTTE_RETURN_IF_ERROR(need_parent("--db", db_path, db_path == kDefaultDb));
  if (report_dir.empty()) return Status::Ok();
  const std::string dir = report_dir;
  if (!fs::exists(dir, ec)) {
    CTTE_RETURN_IF_ERROR(need_parent("--report-dir", fs::path(dir).lexically_normal()
                                                         .string(), dir == kDefaultReportDir));
    fs::create_directory(dir, ec);
    if (ec) return Status::IOError("--report-dir " + dir + ": " + ec.message());
  } else if (!fs::is_directory(dir, ec)) {
    return Status::InvalidArgument("--report-dir " + dir + ": not a folder");
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    return Status::InvalidArgument("--report-dir " + dir + ": not writable (" +
                                   std::strerror(errno) + ")");
  }
  return Status::Ok();
}

SignalWatcher::SignalWatcher() {
  sigemptyset(&set_);
  sigaddset(&set_, SIGINT);
  sigaddset(&set_, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set_, nullptr);
  thread_ = std::thread([this] { Loop(); });
}

SignalWatcher::~SignalWatcher() {
  done_ = true;
  thread_.join();
}

void SignalWatcher::Loop() {
  const timespec tick{0, 50'000'000};
  while (!done_.load()) {
    const int sig = sigtimedwait(&set_, nullptr, &tick);
    if (sig <= 0) continue;
    int expected = 0;
    first_.compare_exchange_strong(expected, sig);
    const int n = ++requests_;
    const char* msg =
        n == 1 ? "\nctte-lab soak: stopping: no new runs; the running runs finish and are "
                 "stored (signal again to abandon them)\n"
        : n == 2 ? "\nctte-lab soak: abandoning the running runs (their boards are killed, "
                   "nothing of them is stored)\n"
                 : "\nctte-lab soak: a third signal: exiting now\n";
    (void)!::write(STDERR_FILENO, msg, std::strlen(msg));
    if (n >= 3) ::_exit(128 + first_.load());
  }
}


}  // namespace ctte::cli
