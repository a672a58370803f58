// The ctte-lab command table (house style 1): each cmd_*.cc file defines one top-level command's
// entry (XCommand() below), main.cc lists them in one literal table and dispatches. A command parses its flags with CLI11, calls
// one library function for its work (e.g. run: runner::RunConfigFromFlags + PrepareRun +
// ExecuteRun; capture: runner::RunBoardSession; replay: runner::ReplayRun; soak:
// runner::RunSoak) and prints the result; checks of flag values and output formatting are all
// that lives in tools/.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace ctte::cli {

/// Exit codes every command uses (README "Exit codes").
enum ExitCode : int {
  kExitOk = 0,         ///< success; for judged runs: all green
  kExitRed = 1,        ///< a judged run or campaign has a red run
  kExitUsage = 2,      ///< usage, input or infrastructure error
  kExitInvalid = 3,    ///< a judged run whose measurement was unsound
  kExitUnsound = 4,    ///< a campaign control failed: its gates are not shown to fail
};

/// A campaign's exit code from its draws' counts, one rule for `soak` and `report --check`:
/// UNSOUND whatever the draws show, then red, then infrastructure, then invalid; a campaign
/// with no draw judged green is not green (`soak` always has one).
inline int CampaignExitCode(bool unsound, uint64_t green, uint64_t red, uint64_t invalid,
                            uint64_t infra) {
  if (unsound) return kExitUnsound;
  if (red > 0) return kExitRed;
  if (infra > 0) return kExitUsage;
  if (invalid > 0) return kExitInvalid;
  return green > 0 ? kExitOk : kExitUsage;
}

struct Command {
  std::string name;
  std::string help;
  /// Adds the subcommand's options to `sub`; returns the function to run when it is chosen.
  std::function<std::function<int()>(CLI::App& sub)> setup;
};

// Each command's entry, defined in its cmd_*.cc; main.cc lists them, in --help order, in one
// literal table (no registration at static-initialisation time, no order numbers to collide).
Command SoakCommand();
Command CampaignCommand();
Command RunCommand();
Command CaptureCommand();
Command ReplayCommand();
Command ShowCommand();
Command HistoryCommand();
Command ReportCommand();
Command BisectCommand();
Command TriageCommand();
Command DbCommand();
Command LabCommand();
Command WorkloadCommand();
Command IssCommand();
Command EncodeCommand();
Command DecodeCommand();

}  // namespace ctte::cli
