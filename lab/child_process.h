// ChildProcess: one supervised child process (fork/exec). The child's stdin and stdout are one
// end of a Unix socketpair (the caller gets the other end), its stderr goes to a pipe that a
// background thread collects (the last 16 KiB are kept), and Wait() reaps it and says how it
// ended ("signal 6 (SIGABRT)", "exit status 3").
//
// Threading: one thread at a time. The stderr thread only appends to the stderr buffer under
// its mutex; it captures `this`, so every path that ends a ChildProcess joins it (Wait() and
// the destructor).
#pragma once

#include <sys/types.h>

#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/status.h"

namespace ctte::lab {

class ChildProcess {
 public:
  /// Starts argv[0] (a path) with argv. On success *stream_fd is the parent's end of the
  /// socketpair (the caller owns it and closes it before Wait() so that the child sees EOF).
  static Result<std::unique_ptr<ChildProcess>> Start(const std::vector<std::string>& argv,
                                                     int* stream_fd);
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  /// Kills and reaps a child still running.
  ~ChildProcess();

  /// Reaps the child: SIGKILL first when kill_first, else a 2 s grace period before SIGKILL.
  /// Joins the stderr thread. Returns how the child ended; later calls return the same.
  std::string Wait(bool kill_first);
  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  /// The last `lines` lines of the child's stderr joined by '|', "(empty)" when there are none.
  /// Complete only after Wait().
  std::string StderrTail(size_t lines) const;

 private:
  ChildProcess() = default;
  pid_t pid_ = -1;
  std::string how_;  ///< how it ended, once reaped
  std::thread stderr_thread_;
  mutable std::mutex stderr_mu_;
  std::string stderr_buf_;
};

}  // namespace ctte::lab
