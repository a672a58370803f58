// SimBoard: deploy with target-side hashing, PLL clocks, and Run(): ISS beats through the
// image model into a backpressured sink and the capture ring (see sim_board.h).
//
// Run, step by step:
//  1. Load the workload ELF and start the ISS with the plan's interrupt schedule.
//  2. Create a fresh model (plan.model_seed), reset it, open the FST file if asked.
//  3. trTeControl := Active, then Active|Enable|mode|sync (InstTracing per the first edge).
//  4. For each ISS beat k (taken kIssBlock at a time, Iss::StepMany): apply the window edges
//     due before beat k (one register write each, with the ingress idle), then idle cycles drawn
//     from the stall pattern (none drawn at IPC 1), then one fabric cycle with the beat on the
//     ingress.
//  5. After the last beat, apply the remaining edges; with stop_at_end write trTeEnable=0.
//  6. Clock until trTeEmpty=1 or the drain budget (sink cycles) is spent; read the counters.
#include "lab/sim/sim_board.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <string_view>
#include <vector>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>

#include "base/files.h"
#include "base/phase_sampler.h"
#include "base/random.h"
#include "base/sha256.h"
#include "base/text.h"
#include "lab/capture_ring.h"
#include "lab/sim/cycle_batch.h"
#include "regmap/registers.h"
#include "lab/sink_pattern.h"
#include "oracle/iss.h"
#include "oracle/program_image.h"

namespace ctte::lab {

namespace {
// Fabric cycles between the stop write and the first trTeEmpty sample.
constexpr int kEmptyPollLatency = 4;
// Beats taken from the ISS per StepMany call.
constexpr size_t kIssBlock = 256;

double Since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

constexpr std::string_view kSlotPrefix = "ctte-board-";

// A pid that no longer runs: gone (ESRCH) or a zombie nobody reaped (a container's init may not).
bool PidIsDead(pid_t pid) {
  if (::kill(pid, 0) != 0) return errno == ESRCH;
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");  // procfs: sizes read as 0
  std::string stat;
  if (!std::getline(in, stat)) return false;
  const size_t paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] == 'Z';
}
}  // namespace

size_t RemoveStaleSlotDirs(const std::string& tmp_dir) {
  namespace fs = std::filesystem;
  size_t removed = 0;
  std::error_code ec;
  for (auto it = fs::directory_iterator(tmp_dir, ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with(kSlotPrefix)) continue;
    // "ctte-board-<pid>-XXXXXX": only folders that name their creator can be judged.
    const std::string rest = name.substr(kSlotPrefix.size());
    const size_t dash = rest.find('-');
    if (dash == 0 || dash == std::string::npos || dash > 10) continue;
    Result<uint64_t> pid = ParseDecimal64(rest.substr(0, dash), "pid");
    if (!pid.ok() || *pid == 0 || *pid > static_cast<uint64_t>(INT32_MAX)) continue;
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode) ||
        st.st_uid != ::geteuid()) {
      continue;  // not a folder of ours (a symlink, another user's): never touched
    }
    if (!PidIsDead(static_cast<pid_t>(*pid))) continue;
    std::error_code rm;
    fs::remove_all(it->path(), rm);
    if (!rm) ++removed;
  }
  return removed;
}

Result<std::unique_ptr<SimBoard>> SimBoard::Create(const SimBoardOptions& options) {
  std::unique_ptr<SimBoard> b(new SimBoard(options));
  if (options.slot_dir.empty()) {
    // The folder names its creator's pid, so that a board killed before its destructor ran
    // (SIGKILL of the board, or of the whole soak's process group) leaves a folder the next
    // board removes here (docs/lab.md, "Slot folders").
    std::error_code tmp_ec;
    const std::filesystem::path tmp = std::filesystem::temp_directory_path(tmp_ec);
    if (tmp_ec) return Status::IOError("no temporary folder: " + tmp_ec.message());
    (void)RemoveStaleSlotDirs(tmp.string());
    std::string tmpl =
        (tmp / (std::string(kSlotPrefix) + std::to_string(::getpid()) + "-XXXXXX")).string();
    if (::mkdtemp(tmpl.data()) == nullptr) {
      return Status::IOError("cannot create a fabric slot directory under " + tmpl);
    }
    b->slot_dir_ = tmpl;
    b->own_slot_dir_ = true;
  } else {
    std::error_code ec;
    std::filesystem::create_directories(options.slot_dir, ec);
    if (ec) return Status::IOError("fabric slot directory " + options.slot_dir + ": " + ec.message());
    b->slot_dir_ = options.slot_dir;
  }
  if (b->options_.serial.empty()) {
    static std::atomic<int> boards{0};  // boards may be created from several threads
    b->options_.serial = "sim-" + std::to_string(::getpid()) + "-" + std::to_string(boards++);
  }
  return b;
}

SimBoard::~SimBoard() {
  Unload();
  if (own_slot_dir_) {
    std::error_code ec;
    std::filesystem::remove_all(slot_dir_, ec);
  }
}

void SimBoard::Unload() {
  driver_.reset();
  image_.reset();
  if (!stored_path_.empty()) {
    std::error_code ec;
    std::filesystem::remove(stored_path_, ec);
  }
  stored_path_.clear();
  image_name_.clear();
  image_sha256_.clear();
}

Result<BoardIdentity> SimBoard::Identify() {
  BoardIdentity id;
  id.kind = "sim";
  id.serial = options_.serial;
#ifdef CTTE_VERSION
  id.version = CTTE_VERSION;
#else
  id.version = "ctte_lab";
#endif
  id.capabilities = {"deploy", "pll:fabric", "pll:sink", "registers", "run", "fst"};
  id.image_name = image_name_;
  id.image_sha256 = image_sha256_;
  id.max_ring_bytes = kSimMaxRingBytes;
  return id;
}

Status SimBoard::NewModel(uint64_t seed) {
  driver_.reset();
  ModelDriver::Options o;
  o.fabric_half_units = fabric_pll_.half_period_units();
  o.sink_half_units = sink_pll_.half_period_units();
  o.seed = seed;
  driver_ = std::make_unique<ModelDriver>(image_->table(), o);
  return Status::Ok();
}

Result<DeployReceipt> SimBoard::Deploy(const DeployRequest& request) {
  std::vector<uint8_t> bytes = request.bytes;
  if (bytes.empty()) {
    Result<std::vector<uint8_t>> file = ReadFileBytes(request.path);
    if (!file.ok()) return file.status();
    bytes = std::move(*file);
  }
  if (bytes.empty()) return Status::InvalidArgument("image " + request.name + ": empty");
  Unload();
  // A new file name per deploy: dlopen() must never see a stale mapping of an older image.
  const std::string name = request.name.empty() ? "image" : request.name;
  const std::string stored =
      slot_dir_ + "/fabric-" + std::to_string(deploys_++) + "-" + name + ".so";
  CTTE_RETURN_IF_ERROR(WriteFileAtomic(stored, bytes));
  stored_path_ = stored;
  Result<std::string> sha = Sha256File(stored);  // over what the target stored
  if (!sha.ok()) {
    Unload();
    return sha.status();
  }
  if (!request.expected_sha256.empty() && *sha != request.expected_sha256) {
    Unload();
    return Status::InvalidArgument("image " + name + " refused: SHA-256 of the stored copy " +
                                   *sha + " differs from the manifest's " +
                                   request.expected_sha256 + " (tampered or wrong image)");
  }
  Result<std::unique_ptr<LoadedImage>> img = LoadedImage::Open(stored);
  if (!img.ok()) {
    Unload();
    return img.status();
  }
  image_ = std::move(*img);
  Status s = NewModel(1);
  if (s.ok()) s = driver_->Reset();
  DeployReceipt r;
  uint32_t lo = 0, hi = 0;
  if (s.ok()) s = driver_->ReadReg(reg::kBuildIdLo, &lo);
  if (s.ok()) s = driver_->ReadReg(reg::kBuildIdHi, &hi);
  if (s.ok()) s = driver_->ReadReg(reg::kProfile, &r.profile);
  if (s.ok()) s = driver_->ReadReg(reg::kCaps, &r.caps);
  if (!s.ok()) {
    Unload();
    return s;
  }
  r.build_id = static_cast<uint64_t>(hi) << 32 | lo;
  if (request.expected_build_id != 0 && r.build_id != request.expected_build_id) {
    Unload();
    return Status::InvalidArgument("image " + name + " refused: build id read back " +
                                   Hex64(r.build_id) + " differs from the manifest's " +
                                   Hex64(request.expected_build_id));
  }
  r.sha256 = *sha;
  r.stored_path = stored;
  r.size = bytes.size();
  image_name_ = image_->table().name ? image_->table().name : name;
  image_sha256_ = *sha;
  return r;
}

Result<uint64_t> SimBoard::SetClock(ClockDomain domain, uint64_t hz) {
  return Pll(domain).Set(hz);
}

Result<uint64_t> SimBoard::ReadClock(ClockDomain domain) { return Pll(domain).ReadBack(); }

Status SimBoard::WriteReg(uint32_t offset, uint32_t value) {
  if (!driver_) return Status::Unavailable("no image deployed");
  return driver_->WriteReg(offset, value);
}

Result<uint32_t> SimBoard::ReadReg(uint32_t offset) {
  if (!driver_) return Status::Unavailable("no image deployed");
  uint32_t v = 0;
  CTTE_RETURN_IF_ERROR(driver_->ReadReg(offset, &v));
  return v;
}

Result<Capture> SimBoard::Run(const RunPlan& plan) {
  if (!image_) return Status::Unavailable("no image deployed");
  Result<oracle::ProgramImage> prog = oracle::ProgramImage::Load(plan.workload_elf);
  if (!prog.ok()) return prog.status();
  return RunProgram(*prog, plan);
}

Result<Capture> SimBoard::RunProgram(const oracle::ProgramImage& program, const RunPlan& plan) {
  if (!image_) return Status::Unavailable("no image deployed");
  if (plan.ring_bytes == 0) return Status::InvalidArgument("plan.ring_bytes must be > 0");
  if (plan.ring_bytes > kSimMaxRingBytes) {
    return Status::InvalidArgument("plan.ring_bytes " + std::to_string(plan.ring_bytes) +
                                   " exceeds the simulated board's capture ring of " +
                                   std::to_string(kSimMaxRingBytes) + " bytes");
  }
  if (plan.stall.ipc_den == 0 || plan.stall.ipc_num == 0 ||
      plan.stall.ipc_num > plan.stall.ipc_den) {
    return Status::InvalidArgument("plan.stall: IPC must be ipc_num/ipc_den in (0, 1]");
  }
  if (plan.sink.kind == BackpressureKind::kUniform &&
      (plan.sink.accept_den == 0 || plan.sink.accept_num == 0)) {
    return Status::InvalidArgument("plan.sink: accept probability must be > 0");
  }
  if (plan.sink.kind == BackpressureKind::kBursty &&
      (plan.sink.ready_min == 0 || plan.sink.ready_min > plan.sink.ready_max ||
       plan.sink.stall_min > plan.sink.stall_max)) {
    return Status::InvalidArgument("plan.sink: bursty ranges must have 1 <= min <= max");
  }
  const auto wall0 = std::chrono::steady_clock::now();
  const phase::Scope in_board(phase::kBoardHarness);
  split_ = RunTimeSplit{};
  oracle::IssOptions iss_opts;
  iss_opts.max_instructions = plan.iss.max_instructions;
  iss_opts.interrupt_at = plan.iss.interrupt_at;
  iss_opts.interrupt_every = plan.iss.interrupt_every;
  oracle::Iss iss(program, iss_opts);

  CTTE_RETURN_IF_ERROR(NewModel(plan.model_seed));
  ModelDriver& d = *driver_;
  if (!plan.fst_path.empty()) CTTE_RETURN_IF_ERROR(d.OpenFst(plan.fst_path));
  CaptureRing ring(plan.ring_bytes);
  SinkPattern sink(plan.sink);
  CTTE_RETURN_IF_ERROR(d.Reset());
  d.AttachSink(&sink, &ring);
  // The driver outlives this run (a register write or the agent's reset comes next): it must
  // not keep pointers to the ring and the pattern that end with this scope.
  struct Detach {
    ModelDriver& d;
    ~Detach() { d.DetachSink(); }
  } detach{d};

  const uint32_t config =
      reg::Control(plan.encoder.mode, plan.encoder.sync_mode, plan.encoder.sync_max);
  std::vector<WindowEdge> edges = plan.window_edges;
  if (edges.empty()) edges.push_back(WindowEdge{0, true});
  bool tracing = false;
  const auto control = [&] {
    return reg::kActive | reg::kEnable | config | (tracing ? reg::kInstTracing : 0u);
  };
  CTTE_RETURN_IF_ERROR(d.WriteReg(reg::kTeControl, reg::kActive));
  if (plan.encoder.inst_features != 0) {
    // Section 11: the enables are written before the window opens, and must hold (WARL: a
    // feature the image does not compile reads 0).
    CTTE_RETURN_IF_ERROR(d.WriteReg(reg::kTeInstFeatures, plan.encoder.inst_features));
    uint32_t back = 0;
    CTTE_RETURN_IF_ERROR(d.ReadReg(reg::kTeInstFeatures, &back));
    if ((back & plan.encoder.inst_features) != plan.encoder.inst_features) {
      return Status::InvalidArgument("plan.encoder.inst_features: " +
                                     HexShort(plan.encoder.inst_features) +
                                     " does not hold in trTeInstFeatures (reads " +
                                     HexShort(back) + "): the image lacks the feature");
    }
  }
  CTTE_RETURN_IF_ERROR(d.WriteReg(reg::kTeControl, control()));

  // The core does not wait for the encoder, so the ISS runs ahead: its beats (kIssBlock at a
  // time, Iss::StepMany), the stall pattern's idle cycles and the window edges' register writes
  // become a batch of fabric-cycle inputs that the image clocks in one call
  // (ModelDriver::RunCycles).
  Rng stall(plan.stall.seed);
  const uint64_t ipc_num = plan.stall.ipc_num, ipc_den = plan.stall.ipc_den;
  // IPC 1 never idles: Chance(n, n) always holds, and the stall generator serves nothing else.
  const bool never_stalls = ipc_num == ipc_den;
  size_t next_edge = 0;
  uint64_t beat_index = 0;
  const ctte_cycle_in idle = ModelDriver::IdleCycle();
  CycleBatch batch(&d);
  const auto write_control = [&] {
    ctte_cycle_in* w = batch.Append(idle);
    w->reg_we = 1;
    w->reg_wdata = control();
  };
  std::array<oracle::Retired, kIssBlock> beats;
  for (;;) {
    size_t got;
    {
      const phase::Scope in_iss(phase::kBoardIss);
      got = iss.StepMany(beats.data(), beats.size());
    }
    for (size_t i = 0; i < got; ++i, ++beat_index) {
      const oracle::Retired& r = beats[i];
      while (next_edge < edges.size() && edges[next_edge].before_beat <= beat_index) {
        tracing = edges[next_edge++].open;
        write_control();
      }
      if (!never_stalls) {
        uint64_t idles = 0;
        while (!stall.Chance(ipc_num, ipc_den)) ++idles;
        if (idles != 0) CTTE_RETURN_IF_ERROR(batch.AppendIdle(idle, idles));
      }
      ctte_cycle_in* in = batch.Append(idle);
      in->beat.valid = 1;
      in->beat.itype = static_cast<uint8_t>(r.itype);
      in->beat.iretire = r.iretire();
      in->beat.ilastsize = r.size == 4 ? 1 : 0;
      in->beat.priv = r.priv;
      in->beat.iaddr = r.pc;
      in->beat.cause = r.cause;
      in->beat.tval = r.tval;
      in->beat.insn = r.insn;
      if (batch.full()) CTTE_RETURN_IF_ERROR(batch.Flush());
    }
    if (got < beats.size()) break;
  }
  while (next_edge < edges.size()) {
    tracing = edges[next_edge++].open;
    write_control();
  }
  CTTE_RETURN_IF_ERROR(batch.Flush());
  if (plan.stop_at_end) {
    CTTE_RETURN_IF_ERROR(d.WriteReg(reg::kTeControl, reg::kActive | config));
  }

  Capture c;
  const uint64_t drain_start = d.sink_cycles();
  // Like software polling trTeEmpty over a bus, the first sample comes a few cycles after the
  // write: the close's records are formed in the cycle after the write's edge.
  for (int i = 0; i < kEmptyPollLatency; ++i) CTTE_RETURN_IF_ERROR(d.FabricCycle());
  while (!(d.control_now() & reg::kEmpty) &&
         d.sink_cycles() - drain_start < plan.drain_budget_sink_cycles) {
    CTTE_RETURN_IF_ERROR(d.FabricCycle());
  }
  c.drain_sink_cycles = d.sink_cycles() - drain_start;
  c.drained = (d.control_now() & reg::kEmpty) != 0;

  Counters& k = c.counters;
  CTTE_RETURN_IF_ERROR(d.ReadReg(reg::kMsgCount, &k.messages));
  CTTE_RETURN_IF_ERROR(d.ReadReg(reg::kByteCount, &k.bytes));
  CTTE_RETURN_IF_ERROR(d.ReadReg(reg::kOverflowEpisodes, &k.overflow_episodes));
  CTTE_RETURN_IF_ERROR(d.ReadReg(reg::kRecordsDropped, &k.records_dropped));
  CTTE_RETURN_IF_ERROR(d.ReadReg(reg::kHalfwordsRetired, &k.halfwords_retired));
  CTTE_RETURN_IF_ERROR(d.ReadReg(reg::kStatus, &k.status));
  CTTE_RETURN_IF_ERROR(d.ReadReg(reg::kTeControl, &k.control));
  c.te_empty = (k.control & reg::kEmpty) != 0;

  c.bytes = ring.TakeContents();
  c.bytes_received = ring.total();
  c.ring_wrapped = ring.wrapped();
  c.fabric_cycles = d.fabric_cycles();
  c.sink_cycles = d.sink_cycles();
  // time units are half VCO periods: ps = units * 1e12 / (2 * VCO)
  c.sim_time_ps = d.time_units() * PllModel::kPsNum / PllModel::kPsDen;
  c.beats = iss.beats();
  c.retired = iss.retired();
  switch (iss.stop_reason()) {
    case oracle::StopReason::kExited: c.core_stop = "exited"; break;
    case oracle::StopReason::kMaxInstructions: c.core_stop = "max_instructions"; break;
    case oracle::StopReason::kFatal: c.core_stop = "fatal: " + iss.fatal_message(); break;
    case oracle::StopReason::kRunning: c.core_stop = "running"; break;
  }
  c.exit_code = iss.exit_code();
  c.console = ConsoleText(iss.console());
  c.fabric_hz = fabric_pll_.ReadBack();
  c.sink_hz = sink_pll_.ReadBack();
  c.max_ready_stall_sink_cycles = d.max_ready_stall();
  c.ready_stall_measured = true;
  c.wall_seconds = Since(wall0);
  split_.total_s = c.wall_seconds;
  split_.evals = d.evals();
  return c;
}

}  // namespace ctte::lab
