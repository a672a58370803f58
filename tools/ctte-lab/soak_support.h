// Helpers of `ctte-lab soak` (tools/ctte-lab/cmd_soak.cc): the output-path rule checked before
// the first run, shell quoting for the printed resume command, and the signal watcher that turns
// SIGINT/SIGTERM into RunSoak stop requests (docs/soak.md, "Output paths" and "Stopping").
#pragma once

#include <signal.h>

#include <atomic>
#include <string>
#include <thread>

#include "base/status.h"

namespace ctte::cli {

inline constexpr const char* kDefaultDb = "out/ctte.db";
inline constexpr const char* kDefaultReportDir = "out/reports";

/// Quotes `s` for a POSIX shell when it needs it.
std::string ShellQuote(const std::string& s);

/// Output paths (the rule in docs/soak.md, "Output paths"): the default paths create a missing
/// out/; an explicit --db or --report-dir needs its parent folder to exist already. The report
/// folder itself is created and must be writable before the first run.
Status CheckOutputPaths(const std::string& db_path, const std::string& report_dir);

/// Takes SIGINT and SIGTERM (blocked in every thread) while it lives; each one is a stop
/// request. The first signal's number decides the exit code.
class SignalWatcher {
 public:
  SignalWatcher();
  ~SignalWatcher();
  const std::atomic<int>* requests() const { return &requests_; }
  int first_signal() const { return first_.load(); }

 private:
  void Loop();

  sigset_t set_;
  std::atomic<bool> done_{false};
  std::atomic<int> requests_{0};
  std::atomic<int> first_{0};
  std::thread thread_;
};

}  // namespace ctte::cli
