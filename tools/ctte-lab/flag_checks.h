// Range checks for numeric flags, applied by CLI11 while it parses (so a bad value is a usage
// error, exit 2, with the flag named, before any work starts). CLI11 alone reads "-1" into an
// unsigned flag as 2^64-1 and "nan" into a double flag; these validators refuse both.
// The documented limits (docs/soak.md, "Limits") are the constants below.
// Header-only (tools/ctte-lab globs cmd_*.cc; helpers live in headers).
#pragma once

#include <CLI/CLI.hpp>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "base/output.h"
#include "runner/campaign_spec.h"
#include "runner/run_config.h"

namespace ctte::cli {

inline constexpr uint64_t kMaxRunsFlag = 1'000'000'000;  ///< soak --runs
inline constexpr uint64_t kMaxDrawCount = 10'000'000;    ///< campaign draw / plan --count
inline constexpr uint64_t kMaxRunIndex = uint64_t{1} << 62;  ///< campaign draw / plan --start
inline constexpr double kMaxClockMhz = 1500.0;           ///< the board PLL's VCO
inline constexpr uint64_t kMaxInstructionsFlag = 1'000'000'000;  ///< --max-instructions
inline constexpr uint64_t kMaxRingBytesFlag = uint64_t{1} << 30;   ///< --ring-bytes
inline constexpr uint64_t kMaxDrainBudgetFlag = 10'000'000'000;    ///< --drain-budget

/// Decimal digits only (no sign, no 0x, no spaces), at most 20 of them; nullopt otherwise.
inline std::optional<uint64_t> ParseDecimalU64(const std::string& text) {
  if (text.empty() || text.size() > 20) return std::nullopt;
  uint64_t v = 0;
  for (char ch : text) {
    if (!std::isdigit(static_cast<unsigned char>(ch))) return std::nullopt;
    const uint64_t d = static_cast<uint64_t>(ch - '0');
    if (v > (UINT64_MAX - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  return v;
}

/// An unsigned decimal integer in [min, max].
inline CLI::Validator UnsignedIn(uint64_t min, uint64_t max) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        std::optional<uint64_t> v = ParseDecimalU64(text);
        if (!v || *v < min || *v > max) {
          return "'" + text + "' is not an integer in " + std::to_string(min) + ".." +
                 std::to_string(max);
        }
        return "";
      },
      "UINT in " + std::to_string(min) + ".." + std::to_string(max));
}

/// Any unsigned 64-bit decimal integer (refuses "-1", which CLI11 would wrap to 2^64-1).
inline CLI::Validator Unsigned() { return UnsignedIn(0, UINT64_MAX); }

/// A finite decimal number in [min, max] (refuses nan, inf and trailing text).
inline CLI::Validator FiniteIn(double min, double max) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        char* end = nullptr;
        errno = 0;
        const double v = text.empty() ? NAN : std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size() || errno != 0 ||
            !std::isfinite(v) || v < min || v > max) {
          char range[64];
          std::snprintf(range, sizeof range, "%g..%g", min, max);
          return "'" + text + "' is not a number in " + range;
        }
        return "";
      },
      "NUMBER");
}

/// A duration such as 2h, 30m, 90s or 1h30m, above zero and at most 30 days.
inline CLI::Validator DurationFlag() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::optional<uint64_t> s = runner::ParseDuration(text);
        if (!s) return "malformed duration '" + text + "' (e.g. 2h, 30m, 90s, 1h30m)";
        if (*s > runner::kMaxBudgetSeconds) {
          return "duration '" + text + "' is longer than 30 days (720h)";
        }
        return "";
      },
      "DURATION");
}

/// An output file path by base/output.h's rule, checked while parsing (for files another
/// process writes, such as the board's FST waveform): no FIFO, symlink, device or folder at it,
/// and its folder must exist.
inline CLI::Validator OutputPathFlag() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        Status s = CheckOutputPath(text);
        return s.ok() ? std::string() : s.message();
      },
      "FILE");
}

/// --mode, --sync-mode and --sync-period, as `run`, `capture` and `encode` all take them (one
/// spelling, one check; the values go to runner::SyncFromFlags).
inline void AddTraceModeOptions(CLI::App& sub, std::string* mode, std::string* sync_mode,
                                uint64_t* sync_period) {
  sub.add_option("--mode", *mode, "htm (default) or btm")->check(CLI::IsMember({"htm", "btm"}));
  sub.add_option("--sync-mode", *sync_mode, "periodic sync: off (default), messages, halfwords")
      ->check(CLI::IsMember({"off", "messages", "halfwords", "0", "1", "3"}));
  sub.add_option("--sync-period", *sync_period,
                 "periodic sync period in messages or half-words: a power of two, 16..2^19 "
                 "(default 16)")
      ->check(Unsigned());
}

/// A 64-bit seed: decimal or 0x hex, not empty (an empty --seed is refused, not "unset").
inline CLI::Validator SeedFlag() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (!runner::ParseSeedText(text)) {
          return "'" + text + "' is not a 64-bit seed (0x... or decimal)";
        }
        return "";
      },
      "SEED");
}

}  // namespace ctte::cli
