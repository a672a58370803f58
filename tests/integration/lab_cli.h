// Runs the built `ctte-lab` as a user would (a child process through the shell, stderr folded
// into stdout) for the integration tests that check its exit codes and JSON.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace ctte::testing {

struct CliResult {
  int exit_code = -1;
  std::string out;
};

/// `ctte-lab ARGS 2>&1`: the exit code (-1 when it did not exit) and everything it printed.
inline CliResult RunLab(const std::string& args) {
  CliResult r;
  const std::string cmd = std::string(CTTE_LAB_PATH) + " " + args + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int st = ::pclose(p);
  r.exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

/// `ctte-lab run ARGS`.
inline CliResult RunCli(const std::string& args) { return RunLab("run " + args); }

}  // namespace ctte::testing
