// RunConfig: everything one run of a campaign needs, drawn by Draw() (runner/draw.h).
//
// It holds the drawn axis values (canonical text, as in the spec) and the concrete parameters a
// board needs (clocks in Hz, backpressure and sync parameters, interrupt schedule, trace window
// edges as retirement indices, seeds of the board's own random streams). It round-trips through
// JSON exactly; the JSON form is what the database stores in runs.config_json
// (docs/db-schema.md) and what `campaign draw --json` prints.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace ctte::runner {

/// Sink ready pattern. "none": always ready. "uniform:<p>": ready with probability p/100 in each
/// sink cycle. "bursty:<min>-<max>": ready and stalled blocks alternate, each block length drawn
/// uniformly in [min, max] sink cycles.
struct Backpressure {
  enum class Kind { kNone, kUniform, kBursty };
  Kind kind = Kind::kNone;
  uint32_t ready_percent = 100;  ///< uniform only
  uint32_t burst_min = 0;        ///< bursty only
  uint32_t burst_max = 0;
  bool operator==(const Backpressure&) const = default;
};

/// Periodic sync (trTeInstSyncMode / trTeInstSyncMax): "off", "messages:<n>", "halfwords:<n>",
/// period 2^n units, 4 <= n <= 19 (trTeInstSyncMax = n - 4).
struct SyncPolicy {
  enum class Kind { kOff, kMessages, kHalfwords };
  Kind kind = Kind::kOff;
  uint32_t period_log2 = 0;
  bool operator==(const SyncPolicy&) const = default;
};

/// Parsers for the structured axis values; on failure they return nullopt and set *reason.
std::optional<Backpressure> ParseBackpressure(std::string_view text, std::string* reason);
std::optional<SyncPolicy> ParseSyncPolicy(std::string_view text, std::string* reason);

/// Marks a campaign's control run (runner/controls.h): which control, which round (0 before
/// the draws, 1 after a budgeted soak's draws), the verdicts it expects red, and whether its
/// determinism twin runs with another model seed. Absent on drawn runs, so their JSON is as
/// before.
struct ControlMarker {
  std::string name;
  uint32_t round = 0;
  std::string shard;  ///< "I/N" when a shard of a sharded soak ran it (runner/controls.h); "" else
  std::vector<std::string> expect_red;
  bool twin = false;
  bool operator==(const ControlMarker&) const = default;
};

struct RunConfig {
  std::string campaign;
  uint64_t index = 0;
  uint64_t seed = 0;                 ///< run seed: RunSeed(campaign seed, index), or the twin's
  std::optional<uint64_t> twin_of;   ///< set on a determinism twin: the index it repeats
  std::string image;

  // Drawn axis values (canonical text).
  std::string overflow_regime;
  std::string backpressure;
  std::string mode;
  std::string sync;
  std::string workload;
  std::string window;
  std::string interrupts;
  /// Optional compression features (`--features` grammar, docs/encoder-behaviour.md section
  /// 11): "" or "none" = all off. In the JSON only when not empty ("" when the campaign has no
  /// features axis, or the CLI gave none), so that features-off configs are the JSON they
  /// always were; a campaign that crosses the axis records "none" too.
  std::string features;
  uint32_t fabric_mhz = 0;

  // Concrete parameters derived from the values and the run seed.
  uint64_t fabric_hz = 0;            ///< requested fabric (core + encoder) clock
  uint64_t sink_hz = 0;              ///< requested sink clock
  uint32_t core_stall_percent = 0;   ///< chance of an idle fabric cycle between beats
  Backpressure backpressure_params;
  SyncPolicy sync_params;
  std::vector<uint64_t> interrupt_at;  ///< retirement indices, ascending (sparse)
  uint64_t interrupt_every = 0;        ///< period in retirements (storm), 0 = none
  // Trace window, as retirement indices: tracing starts at window_start; a pause at
  // window_pause resumes at window_resume; window_stop disables the encoder (flush).
  uint64_t window_start = 0;
  std::optional<uint64_t> window_pause;
  std::optional<uint64_t> window_resume;
  std::optional<uint64_t> window_stop;
  uint64_t stall_seed = 0;           ///< core stall pattern
  uint64_t sink_seed = 0;            ///< sink ready pattern
  uint64_t program_seed = 0;         ///< program generator (workload "random")
  std::optional<ControlMarker> control;  ///< set on control runs only ("control" in the JSON)

  bool operator==(const RunConfig&) const = default;

  /// The value of an axis by name (fabric_mhz as decimal text); empty if unknown.
  std::string AxisValue(std::string_view axis) const;
};

/// Compact JSON (one line) when indent < 0, else pretty-printed. Keys in a fixed order.
std::string RunConfigToJson(const RunConfig& config, int indent = -1);
/// Parses the JSON written by RunConfigToJson; errors name the JSON path.
Result<RunConfig> RunConfigFromJson(std::string_view json_text);

/// "0x0123456789abcdef": how seeds appear in JSON, the database and on failure lines.
std::string SeedHex(uint64_t seed);
/// Parses "0x..." (1 to 16 hex digits) or a decimal string.
std::optional<uint64_t> ParseSeedText(std::string_view text);

}  // namespace ctte::runner
