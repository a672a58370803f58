// A campaign spec: the declarative JSON file under campaigns/ (format: docs/campaign-spec.md).
//
// Parsing validates everything and collects every error with its JSON path ("$.axes.sync[1]")
// and a reason, so one `campaign check` shows all the faults of a file at once. A parsed spec is
// complete: axes the file leaves out hold their single default value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "lab/board.h"

namespace ctte::runner {

/// One value of an axis (canonical text, e.g. "uniform:50", "100") with its integer weight.
struct WeightedValue {
  std::string value;
  uint64_t weight = 1;
  bool operator==(const WeightedValue&) const = default;
};

/// A drawn factor: its name (e.g. "workload") and the values it may take.
struct Axis {
  std::string name;
  std::vector<WeightedValue> values;
  bool operator==(const Axis&) const = default;
};

/// The axis names in their fixed order (also the order of RunConfig JSON and of `history`).
const std::vector<std::string>& AxisNames();
/// Default value of an axis that a spec leaves out ("none", "htm", "off", "loop", ...).
/// fabric_mhz's default is the spec's clocks.fabric_mhz, so it is not listed here.
std::string AxisDefault(std::string_view axis);

/// A negative (or clean) control of a campaign (docs/campaign-spec.md, "Controls"): one run of
/// `image` with some axes fixed (the rest drawn from the campaign's axes with the control's own
/// seed) whose verdicts in `expect_red` must fail; with none listed, the run must be green.
struct ControlSpec {
  std::string name;
  std::string description;
  std::string image;
  std::vector<std::pair<std::string, std::string>> axes;  ///< fixed axis values, canonical
  std::vector<std::string> expect_red;                    ///< verdict code names, code order
  bool twin = false;  ///< judge determinism against a twin run with another model seed
  bool operator==(const ControlSpec&) const = default;
};

/// A lab's own program ($.workloads): a value of the workload axis beside the built-ins.
struct UserWorkload {
  std::string name;    ///< the axis value (1-64 of a-z 0-9 - _; not a built-in name)
  std::string elf;     ///< the path as the spec gives it (relative to the spec's folder)
  std::string path;    ///< the file read: spec folder / elf, made absolute
  std::string sha256;  ///< SHA-256 of the file when the spec was read
  bool operator==(const UserWorkload&) const = default;
};

/// The built-in workload names (campaigns/workloads/*.c, and "random").
const std::vector<std::string>& BuiltinWorkloads();

struct CampaignSpec {
  std::string name;
  std::string description;
  uint64_t seed = 0;
  std::optional<uint64_t> runs;            ///< exactly one of runs and budget_seconds is set
  std::optional<uint64_t> budget_seconds;
  std::vector<WeightedValue> images;
  uint32_t fabric_mhz = 100;               ///< clocks.fabric_mhz: default requested fabric clock
  uint32_t sink_mhz = 100;                 ///< clocks.sink_mhz: sink clock of regime "none"
  uint64_t horizon_retirements = 50000;    ///< window and interrupt indices fall below this
  uint32_t determinism_pairs_ppm = 0;      ///< fraction of pairs, in parts per million
  std::vector<Axis> axes;                  ///< every axis of AxisNames(), in that order
  std::vector<ControlSpec> controls;       ///< run before the draws (runner/controls.h)
  std::vector<UserWorkload> workloads;     ///< $.workloads, in the order given
  /// $.capture.ring_bytes: the capture ring every run of the campaign asks its board for
  /// (lab::RunPlan::ring_bytes). Not a drawn factor: it enters neither the draws nor config_json;
  /// the campaign row's spec text pins it (CaptureRingOfSpecText).
  uint64_t ring_bytes = lab::kDefaultRingBytes;

  /// The user workload named `name`, or nullptr (a built-in or unknown name).
  const UserWorkload* user_workload(std::string_view workload) const;

  const Axis& axis(std::string_view name) const;
};

struct SpecError {
  std::string path;    ///< JSON path, "$" for the document itself
  std::string reason;
  std::string ToString() const { return path + ": " + reason; }
};

/// The outcome of parsing: a spec that is usable only when errors is empty.
struct SpecCheck {
  CampaignSpec spec;
  std::vector<SpecError> errors;
  bool ok() const { return errors.empty(); }
};

/// Parses a spec. The ELF files of $.workloads are read relative to `spec_dir` (each is checked:
/// present, an ELF, RV64 RISC-V, segments inside the platform's RAM) and their digests taken.
SpecCheck ParseCampaignSpec(std::string_view json_text, const std::string& spec_dir = ".");

/// How many errors FormatSpecErrors prints before "... and N more error(s)".
inline constexpr size_t kMaxPrintedSpecErrors = 50;
/// "PATH: $.x: reason" lines (each ending in a newline) for the first kMaxPrintedSpecErrors
/// errors, then "PATH: ... and N more error(s)" when there are more.
std::string FormatSpecErrors(const std::string& path, const std::vector<SpecError>& errors);
/// Reads and parses a file (workload ELFs relative to its folder); a file that cannot be read is
/// a Status (NotFound / IOError).
Result<SpecCheck> LoadCampaignSpec(const std::string& path);

/// The longest budget a spec ($.budget) or `soak --budget` may give: 30 days.
inline constexpr uint64_t kMaxBudgetSeconds = 30ull * 24 * 3600;
/// The largest run count a spec ($.runs) or `soak --runs` may give.
inline constexpr uint64_t kMaxRuns = 1'000'000'000;

/// The largest $.capture.ring_bytes a spec may give (1 GiB, as `run --ring-bytes`); the board
/// decides what it holds (lab::BoardIdentity::max_ring_bytes).
inline constexpr uint64_t kMaxSpecRingBytes = uint64_t{1} << 30;

/// $.capture.ring_bytes of a stored spec text (a campaign row's spec_json): what its runs asked
/// for. A spec without it, written before the field existed (or an empty text), gives
/// lab::kDefaultRingBytes; a
/// text that is not a spec object, or whose value is not an integer in 1..kMaxSpecRingBytes, is
/// an InvalidArgument naming the path.
Result<uint64_t> CaptureRingOfSpecText(std::string_view spec_text);

/// The spec text a campaign row stores when the spec has user workloads: each $.workloads entry
/// becomes {"elf": ..., "sha256": ...} with the digest read, so a campaign whose ELF changed is
/// another campaign (another spec_sha256). Without user workloads the text is returned as is.
std::string PinnedSpecText(const std::string& text, const CampaignSpec& spec);

/// "2h", "30m", "90s", "1h30m" -> seconds; nullopt if malformed or zero.
std::optional<uint64_t> ParseDuration(std::string_view text);

}  // namespace ctte::runner
