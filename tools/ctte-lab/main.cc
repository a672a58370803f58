// ctte-lab: the lab's command line. A thin dispatcher over the command table (command.h).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <memory>

#include "base/version.h"
#include "tools/ctte-lab/command.h"

namespace ctte::cli {
std::vector<Command>& Commands() {
  static std::vector<Command> commands;
  return commands;
}
}  // namespace ctte::cli

int main(int argc, char** argv) {
  using namespace ctte::cli;
  CLI::App app{"ctte-lab: hardware-in-the-loop campaign runner for a RISC-V N-Trace encoder"};
  app.set_version_flag("--version", std::string("ctte-lab ") + ctte::ToolVersion() +
                                        "\npackage ctte-lab " + ctte::PackageVersion());
  app.require_subcommand(1);
  app.fallthrough();
  auto& cmds = Commands();
  std::sort(cmds.begin(), cmds.end(),
            [](const Command& a, const Command& b) { return a.order < b.order; });
  std::function<int()> chosen;
  std::vector<std::pair<CLI::App*, std::function<int()>>> runners;
  for (const Command& c : cmds) {
    CLI::App* sub = app.add_subcommand(c.name, c.help);
    runners.emplace_back(sub, c.setup(*sub));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : kExitUsage;
  }
  for (auto& [sub, fn] : runners) {
    if (sub->parsed() && fn) return fn();
  }
  std::fprintf(stderr, "ctte-lab: no command given (try --help)\n");
  return kExitUsage;
}
