// ctte-lab: the lab's command line. A thin dispatcher over one literal command table (below;
// each entry defined in its cmd_*.cc, declared in command.h).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>
#include <vector>

#include "base/version.h"
#include "tools/ctte-lab/command.h"

int main(int argc, char** argv) {
  using namespace ctte::cli;
  CLI::App app{"ctte-lab: hardware-in-the-loop campaign runner for a RISC-V N-Trace encoder"};
  app.set_version_flag("--version", std::string("ctte-lab ") + ctte::ToolVersion() +
                                        "\npackage ctte-lab " + ctte::PackageVersion());
  app.require_subcommand(1);
  app.fallthrough();
  // The command table, in --help order.
  const std::vector<Command> cmds = {
      SoakCommand(),    CampaignCommand(), IssCommand(),     EncodeCommand(),
      WorkloadCommand(), DecodeCommand(),  LabCommand(),     CaptureCommand(),
      RunCommand(),     ReplayCommand(),   HistoryCommand(), ShowCommand(),
      BisectCommand(),  ReportCommand(),   TriageCommand(),  DbCommand(),
  };
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
