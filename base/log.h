// Logging (spdlog behind one small interface): a LogFn takes a level and a line. Libraries take
// a LogFn (the soak runner, runner/soak.h) and never open files themselves; the tools open the
// sink: OpenLogFile() writes one timestamped line per call to a file (`ctte-lab soak` writes
// `<report-dir>/<campaign>-<id>.log`, docs/soak.md "Log").
//
// Thread-safe: a LogFn from OpenLogFile may be called from any thread.
#pragma once

#include <functional>
#include <string>

#include "base/status.h"

namespace ctte {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarn = 2, kError = 3 };
using LogFn = std::function<void(LogLevel, const std::string&)>;

/// "debug", "info", "warn", "error".
const char* LogLevelName(LogLevel level);
/// Inverse of LogLevelName; InvalidArgument naming `flag` otherwise.
Result<LogLevel> ParseLogLevel(const std::string& text, const std::string& flag);

/// A LogFn appending "<UTC time> <level> <line>" to `path` for levels >= `min_level`, flushed
/// after each line (a killed soak keeps its log). The path is checked as an output path first
/// (base/output.h CheckOutputPath: a regular file or nothing).
Result<LogFn> OpenLogFile(const std::string& path, LogLevel min_level);

}  // namespace ctte
