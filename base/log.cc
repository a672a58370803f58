// Logging (see log.h).
#include "base/log.h"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <memory>

#include "base/output.h"

namespace ctte {

const char* LogLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug: return "debug";
    case LogLevel::kInfo: return "info";
    case LogLevel::kWarn: return "warn";
    case LogLevel::kError: return "error";
  }
  return "info";
}

Result<LogLevel> ParseLogLevel(const std::string& text, const std::string& flag) {
  for (LogLevel l : {LogLevel::kDebug, LogLevel::kInfo, LogLevel::kWarn, LogLevel::kError}) {
    if (text == LogLevelName(l)) return l;
  }
  return Status::InvalidArgument(flag + ": '" + text + "' is not a log level (debug, info, warn, error)");
}

Result<LogFn> OpenLogFile(const std::string& path, LogLevel min_level) {
  OutputOptions o;
  o.replace_existing = true;
  CTTE_RETURN_IF_ERROR(CheckOutputPath(path, o));
  static std::atomic<int> serial{0};
  std::shared_ptr<spdlog::logger> logger;
  try {
    auto sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(path, /*truncate=*/false);
    logger = std::make_shared<spdlog::logger>("log-" + std::to_string(serial++), sink);
  } catch (const spdlog::spdlog_ex& e) {
    return Status::IOError("log file " + path + ": " + e.what());
  }
  logger->set_pattern("%Y-%m-%dT%H:%M:%S.%eZ %l %v", spdlog::pattern_time_type::utc);
  logger->set_level(spdlog::level::trace);
  logger->flush_on(spdlog::level::trace);
  return LogFn([logger, min_level](LogLevel level, const std::string& line) {
    if (level < min_level) return;
    switch (level) {
      case LogLevel::kDebug: logger->debug("{}", line); break;
      case LogLevel::kInfo: logger->info("{}", line); break;
      case LogLevel::kWarn: logger->warn("{}", line); break;
      case LogLevel::kError: logger->error("{}", line); break;
    }
  });
}

}  // namespace ctte
