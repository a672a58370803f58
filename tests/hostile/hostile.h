// The hostile-input suite (issue #11): a corpus of bad inputs generated at test time, run
// through every ctte-lab command and ctte-board, each case in its own folder under one temporary
// root. A case fails on a crash (a signal), a hang (killed after the timeout), an output flood,
// an exit code it does not allow, an error message that names none of the case's locators (the
// bad file, flag or JSON path), a post-condition (a FIFO at an output path is still a FIFO, a
// missing parent is still missing), or any change to the files the case keeps outside its
// folder (the victims a symlink points at).
//
// Cases that fail today are listed in known_failures.txt; the suite fails when an unlisted case
// fails and when a listed case passes, so the list only shrinks.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace ctte::hostile {

/// A valid spec small enough that a soak of one run takes about a second.
inline constexpr const char* kTinySpec =
    R"({"name": "tiny", "seed": 1, "runs": 2, "images": ["ntrace-slim"],)"
    R"( "clocks": {"fabric_mhz": 90}, "horizon_retirements": 64,)"
    R"( "axes": {"workload": ["loop"]}})";

/// What the corpus needs to know about the build under test.
struct Env {
  std::string lab;            ///< ctte-lab
  std::string board;          ///< ctte-board
  std::string source_dir;     ///< the source tree
  std::string images;         ///< image manifests (build/images)
  std::string workloads;      ///< workload ELFs (build/workloads)
  std::string fixtures;       ///< shared fixtures made once per suite run
  bool have_sqlite3 = false;  ///< the sqlite3 shell is on PATH (stored-config cases)
};

/// A post-condition on a path (relative to the case folder unless absolute).
struct PathCheck {
  enum class Kind { kAbsent, kFifo, kSymlink, kDirectory, kRegular, kCharDevice };
  std::string path;
  Kind kind;
};

struct Case {
  std::string id;     ///< unique, e.g. "spec.check.1e400"
  std::string cls;    ///< the summary table's class, e.g. "spec"
  std::vector<std::string> argv;  ///< argv[0] is the program
  /// Makes the case's files; `dir` is the case folder (the working folder), `outside` a
  /// folder of victims outside it whose contents must not change.
  std::function<void(const std::string& dir, const std::string& outside)> setup;
  std::vector<int> exits = {2};   ///< allowed exit codes
  /// The message (stdout and stderr) of a failing exit must contain, for every group, one of
  /// the group's strings (no groups: no message check). "$" alone means a JSON path
  /// ("$." / "$[" / "$:").
  std::vector<std::vector<std::string>> locators;
  bool locate_always = false;     ///< check the locators on exit 0 too (ctte-board replies)
  std::vector<PathCheck> after;   ///< post-conditions
  std::string stdin_file;         ///< fed to stdin (relative to the case folder); else /dev/null
  bool unprivileged = false;      ///< run as nobody when the suite runs as root
  int timeout_s = 0;              ///< 0: the suite's default
};

/// Every case. Fixture-dependent cases are left out when a fixture is missing.
std::vector<Case> MakeCorpus(const Env& env);

/// Builds the shared fixtures (a tiny spec, a run config, a trace, a database with one run).
/// Returns an empty string or what went wrong.
std::string MakeFixtures(Env& env);

// Helpers the corpus uses to make files.
void WriteText(const std::string& path, const std::string& text);
std::string ReadText(const std::string& path);
void MakeFifo(const std::string& path);
void Symlink(const std::string& target, const std::string& link);
void CopyFile(const std::string& from, const std::string& to);

}  // namespace ctte::hostile
