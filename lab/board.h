// A Board: one target that holds an encoder image, has clocks, a register file and a trace sink.
//
// Contract (DESIGN.md section 4), for every implementation (SimBoard, RemoteBoard, fakes):
//  - Identify() says what the board is; it never changes the board's state.
//  - Deploy() stores the image at the target, computes the SHA-256 *at the target over what it
//    stored*, loads it and reads the build id back from the loaded design's identity register.
//    When the request names an expected SHA-256 or build id (from the image manifest) and the
//    target sees something else, the image is refused (InvalidArgument, both values named) and
//    the board holds no image.
//  - SetClock() programs the PLL and returns the achieved (quantized) frequency; ReadClock()
//    returns what the board reads back from its clock hardware. Power-on: what the firmware left.
//  - WriteReg()/ReadReg() access the encoder's 32-bit register file (docs/encoder-behaviour.md 9).
//  - Run() executes one RunPlan from reset and blocks until the capture is drained (or the drain
//    budget is spent) and the counters are read.
//
// Threading: a Board is used from one thread at a time.
//
// Failures: harness failures are Status values. The kinds a caller must tell apart (an RTL
// assertion, a board death or hang, everything else) travel with the Status as data and are read
// with ClassifyFailure() (lab/failure.h).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "regmap/registers.h"
#include "lab/failure.h"

namespace ctte::lab {

enum class ClockDomain : uint8_t { kFabric = 0, kSink = 1 };
const char* ClockDomainName(ClockDomain d);
Result<ClockDomain> ParseClockDomain(const std::string& name);

struct BoardIdentity {
  std::string kind;     ///< "sim", "remote:sim", "fake"
  std::string serial;   ///< unique per board instance
  std::string version;  ///< board software version
  std::vector<std::string> capabilities;  ///< e.g. "deploy", "fst", "pll:fabric", "pll:sink"
  std::string image_name;   ///< the loaded image's profile name, "" when none
  std::string image_sha256; ///< as computed at deploy, "" when none
  /// The largest capture ring (RunPlan::ring_bytes) this board can hold: a SimBoard's
  /// kSimMaxRingBytes, a ZynqBoard's u-dma-buf (DDR) window. 0: not reported (a board of an older
  /// protocol); the runner then cannot refuse a plan up front and the board's Run() decides.
  uint64_t max_ring_bytes = 0;
};

/// What to deploy. Exactly one of `path` and `bytes` is used (`bytes` when non-empty).
struct DeployRequest {
  std::string name;                ///< image name, for messages and the slot file name
  std::string path;                ///< an image file readable by the target
  std::vector<uint8_t> bytes;      ///< or the image itself
  std::string expected_sha256;     ///< from the manifest; "" = do not check at the target
  uint64_t expected_build_id = 0;  ///< from the manifest; 0 = do not check at the target
  /// The design's register map from the manifest: register name -> byte offset in the design's
  /// register window. Empty = not declared (boards that address registers through reg:: offsets,
  /// like SimBoard, ignore it; ZynqBoard needs it: it addresses nothing the map does not name).
  std::map<std::string, uint32_t> registers;
};

struct DeployReceipt {
  std::string sha256;       ///< computed at the target over the stored copy
  uint64_t build_id = 0;    ///< read back from ctteBuildIdHi:Lo
  uint32_t profile = 0;     ///< ctteProfile register
  uint32_t caps = 0;        ///< ctteCaps register
  std::string stored_path;  ///< where the target stored it (its fabric slot)
  uint64_t size = 0;        ///< bytes stored
  /// Not on the wire's receipt object: the agent skipped the deploy because the board already
  /// held this image (its identity read back the same SHA-256); set by RemoteBoard.
  bool skipped = false;
};

// ---- RunPlan --------------------------------------------------------------------------------

// The plan defaults, defined once: the runner's options and the CLI flags start from these.
inline constexpr uint64_t kDefaultMaxInstructions = 5'000'000;  ///< beat budget of the core
inline constexpr uint64_t kDefaultRingBytes = 1u << 20;         ///< capture ring, 1 MiB
/// The simulated board's capture-ring capacity (BoardIdentity::max_ring_bytes): host memory, of
/// which a run takes only what its stream fills (CaptureRing grows to its capacity).
inline constexpr uint64_t kSimMaxRingBytes = uint64_t{256} << 20;  ///< 256 MiB
inline constexpr uint64_t kDefaultDrainBudgetSinkCycles = 1'000'000;
inline constexpr uint64_t kDefaultSinkHz = 100'000'000;         ///< sink clock when none is asked

struct IssPlan {
  uint64_t max_instructions = kDefaultMaxInstructions;
  std::vector<uint64_t> interrupt_at;  ///< retired-instruction counts, ascending
  uint64_t interrupt_every = 0;
};

struct EncoderPlan {
  uint8_t mode = reg::kInstModeHtm;       ///< trTeInstMode: reg::kInstModeHtm or kInstModeBtm
  uint8_t sync_mode = reg::kSyncModeOff;  ///< trTeInstSyncMode: reg::kSyncMode*
  uint8_t sync_max = 0;    ///< trTeInstSyncMax (period 2^(max+4))
  /// trTeInstFeatures, written before the window opens (0: every optional feature off;
  /// docs/encoder-behaviour.md section 11).
  uint32_t inst_features = 0;
};

/// A trace-window edge, applied between beats: the register write happens before beat
/// `before_beat` is presented (beats count retiring and trap beats from 0).
struct WindowEdge {
  uint64_t before_beat = 0;
  bool open = true;  ///< true: trTeInstTracing=1; false: trTeInstTracing=0 (pause)
};

/// Core stall pattern: each fabric cycle that could carry the next beat carries it with
/// probability ipc_num/ipc_den (so IPC ~ that ratio), seeded.
struct StallPlan {
  uint64_t seed = 1;
  uint32_t ipc_num = 1;
  uint32_t ipc_den = 1;
};

enum class BackpressureKind : uint8_t { kNone = 0, kUniform = 1, kBursty = 2 };

/// Sink ready pattern, one decision per sink clock cycle, seeded. The board-level form: the
/// runner maps the campaign grammar (docs/campaign-spec.md, "backpressure") to it in one place
/// (runner/plan.h SinkProfile).
struct BackpressureProfile {
  BackpressureKind kind = BackpressureKind::kNone;
  uint64_t seed = 1;
  uint32_t accept_num = 1;  ///< kUniform: ready with probability accept_num/accept_den
  uint32_t accept_den = 1;
  uint32_t ready_min = 1, ready_max = 1;  ///< kBursty: ready block lengths (sink cycles)
  uint32_t stall_min = 0, stall_max = 0;  ///< kBursty: stall block lengths (sink cycles)
};

struct RunPlan {
  std::string workload_elf;
  IssPlan iss;
  EncoderPlan encoder;
  /// Empty: the window opens before beat 0 and stays open. Otherwise applied in order.
  std::vector<WindowEdge> window_edges;
  bool stop_at_end = true;     ///< after the last beat write trTeEnable=0 and drain
  StallPlan stall;
  BackpressureProfile sink;
  uint64_t ring_bytes = kDefaultRingBytes;  ///< capture ring capacity
  uint64_t drain_budget_sink_cycles = kDefaultDrainBudgetSinkCycles;
  uint64_t model_seed = 1;     ///< seeds the model's X initialization
  std::string fst_path;        ///< "" = no waveform
};

struct Counters {
  uint32_t messages = 0;           ///< ctteMsgCount
  uint32_t bytes = 0;              ///< ctteByteCount
  uint32_t overflow_episodes = 0;  ///< ctteOverflowEpisodes
  uint32_t records_dropped = 0;    ///< ctteRecordsDropped
  uint32_t halfwords_retired = 0;  ///< ctteHalfwordsRetired
  uint32_t status = 0;             ///< ctteStatus
  uint32_t control = 0;            ///< trTeControl after the run
};

struct Capture {
  std::vector<uint8_t> bytes;     ///< the ring's contents, oldest first
  uint64_t bytes_received = 0;    ///< bytes the sink accepted (> bytes.size() when wrapped)
  bool ring_wrapped = false;
  Counters counters;
  bool te_empty = false;          ///< trTeEmpty after the run
  bool drained = false;           ///< trTeEmpty reached 1 within the drain budget
  uint64_t drain_sink_cycles = 0; ///< sink cycles spent draining after the stop
  uint64_t fabric_cycles = 0;
  uint64_t sink_cycles = 0;
  uint64_t sim_time_ps = 0;       ///< simulated duration
  double wall_seconds = 0;        ///< host time (informational; never affects results)
  uint64_t beats = 0;             ///< ingress beats presented
  uint64_t retired = 0;           ///< instructions retired by the core
  std::string core_stop;          ///< "exited", "max_instructions", "fatal: ..."
  int exit_code = 0;              ///< workload exit code when core_stop == "exited"
  /// What the workload printed (UART, HTIF), as text: bytes other than printable ASCII, tab
  /// and newline are written "\xNN"; at most kMaxConsoleBytes of it (ConsoleText).
  std::string console;
  uint64_t fabric_hz = 0, sink_hz = 0;  ///< clocks during the run
  /// Longest run of consecutive sink cycles with ready=1, trTeEmpty=0 and no byte offered
  /// (the output stalled while the sink was ready; liveness). Valid when ready_stall_measured.
  uint64_t max_ready_stall_sink_cycles = 0;
  bool ready_stall_measured = false;
};

/// How much of a workload's console a capture keeps.
inline constexpr size_t kMaxConsoleBytes = 4096;
/// The console text of a capture: `raw` escaped as Capture::console says, cut after
/// kMaxConsoleBytes raw bytes with "...[N more bytes]".
std::string ConsoleText(const std::string& raw);

class Board {
 public:
  virtual ~Board() = default;
  virtual Result<BoardIdentity> Identify() = 0;
  virtual Result<DeployReceipt> Deploy(const DeployRequest& request) = 0;
  virtual Result<uint64_t> SetClock(ClockDomain domain, uint64_t hz) = 0;
  virtual Result<uint64_t> ReadClock(ClockDomain domain) = 0;
  virtual Status WriteReg(uint32_t offset, uint32_t value) = 0;
  virtual Result<uint32_t> ReadReg(uint32_t offset) = 0;
  virtual Result<Capture> Run(const RunPlan& plan) = 0;
};

}  // namespace ctte::lab
