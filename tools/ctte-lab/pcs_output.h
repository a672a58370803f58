// `--pcs FILE|-` of decode and iss (docs/inputs-and-outputs.md "Standard output"): "-" gives
// the PCs standard output, moves the command's other text to stderr and refuses a flag that
// only prints to standard output (--json, --messages). Header-only (tools/ctte-lab globs
// cmd_*.cc; helpers live in headers).
#pragma once

#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "base/output.h"

namespace ctte::cli {

struct PcsOutput {
  std::unique_ptr<OutputFileWriter> writer;  ///< null without --pcs
  FILE* info = stdout;                       ///< where the rest of the text goes
};

/// Opens --pcs `path` (nothing when empty) for `ctte-lab CMD`. `stdout_flag` names a flag given
/// that prints to standard output (nullptr: none). On a refusal or an open error it prints
/// "ctte-lab CMD: ..." to stderr and returns nullopt: the caller exits 2. Call it before
/// opening any input, so a closed fd 1 is found closed instead of reused by an open().
inline std::optional<PcsOutput> OpenPcsOutput(const char* cmd, const std::string& path,
                                              const char* stdout_flag) {
  PcsOutput out;
  if (path.empty()) return out;
  if (OutputFileWriter::IsStdout(path)) {
    if (stdout_flag != nullptr) {
      std::fprintf(stderr,
                   "ctte-lab %s: --pcs - writes the PCs to standard output, where %s prints "
                   "too; give --pcs a file name, or drop %s\n",
                   cmd, stdout_flag, stdout_flag);
      return std::nullopt;
    }
    out.info = stderr;
  }
  Result<std::unique_ptr<OutputFileWriter>> w = OutputFileWriter::Open(path);
  if (!w.ok()) {
    std::fprintf(stderr, "ctte-lab %s: --pcs: %s\n", cmd, w.status().ToString().c_str());
    return std::nullopt;
  }
  out.writer = std::move(*w);
  return out;
}

}  // namespace ctte::cli
