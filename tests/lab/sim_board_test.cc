// SimBoard on the real encoder images (build/images) and workloads (build/workloads): deploy
// verification, clocks, and runs whose bytes are compared with the software reference encoder.
// Skipped, saying why, when the images or workloads have not been built.
#include "lab/sim/sim_board.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/files.h"
#include "lab/image_manifest.h"
#include "lab/remote_board.h"
#include "oracle/iss.h"
#include "oracle/ntrace_reader.h"
#include "oracle/program_image.h"
#include "oracle/reconstruct.h"
#include "oracle/reference_encoder.h"

namespace ctte::lab {
namespace {

const std::string kImages = CTTE_BINARY_DIR "/images/";
const std::string kWorkloads = CTTE_BINARY_DIR "/workloads/";

std::string Workload(const std::string& name) { return kWorkloads + name + ".elf"; }

// The reference stream for a plan: the ISS's beats through the software encoder, with the
// plan's window edges applied before the same beats.
std::vector<uint8_t> ReferenceBytes(const RunPlan& plan) {
  Result<oracle::ProgramImage> image = oracle::ProgramImage::Load(plan.workload_elf);
  EXPECT_TRUE(image.ok()) << image.status().ToString();
  if (!image.ok()) return {};
  oracle::IssOptions o;
  o.max_instructions = plan.iss.max_instructions;
  o.interrupt_at = plan.iss.interrupt_at;
  o.interrupt_every = plan.iss.interrupt_every;
  oracle::Iss iss(*image, o);
  oracle::EncoderConfig cfg;
  cfg.mode = static_cast<oracle::TraceMode>(plan.encoder.mode);
  cfg.sync_mode = plan.encoder.sync_mode;
  cfg.sync_max = plan.encoder.sync_max;
  oracle::ReferenceEncoder enc(cfg);
  std::vector<WindowEdge> edges = plan.window_edges;
  if (edges.empty()) edges.push_back({0, true});
  size_t next = 0;
  uint64_t k = 0;
  oracle::Retired r;
  const auto apply = [&](const WindowEdge& e) { e.open ? enc.Open() : enc.Close(); };
  while (iss.Step(&r)) {
    while (next < edges.size() && edges[next].before_beat <= k) apply(edges[next++]);
    enc.Beat(r);
    ++k;
  }
  while (next < edges.size()) apply(edges[next++]);
  if (plan.stop_at_end) enc.Close();
  return enc.bytes();
}

class SimBoardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* f : {"ntrace-slim.so", "ntrace-slim.manifest.json", "ntrace-shallow.so",
                          "ntrace-shallow.manifest.json"}) {
      if (!std::filesystem::exists(kImages + f)) {
        GTEST_SKIP() << "encoder image " << kImages << f << " not built (target ctte_images)";
      }
    }
    for (const char* w : {"loop", "calls", "ptrchase", "sort", "switch", "traps"}) {
      if (!std::filesystem::exists(Workload(w))) {
        GTEST_SKIP() << "workload " << Workload(w) << " not built (target ctte_workloads)";
      }
    }
    Result<std::unique_ptr<SimBoard>> b = SimBoard::Create({});
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    board_ = std::move(*b);
  }

  ImageManifest Manifest(const std::string& name) {
    Result<ImageManifest> m = ImageManifest::Load(kImages + name + ".manifest.json");
    EXPECT_TRUE(m.ok()) << m.status().ToString();
    return m.ok() ? *m : ImageManifest{};
  }

  void DeployOrDie(const std::string& name, uint64_t fabric_hz = 93'750'000) {
    const ImageManifest m = Manifest(name);
    Result<DeployReceipt> r = board_->Deploy(m.ToDeployRequest());
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_TRUE(CheckReceipt(m, *r).ok());
    ASSERT_TRUE(board_->SetClock(ClockDomain::kFabric, fabric_hz).ok());
  }

  std::unique_ptr<SimBoard> board_;
};

TEST_F(SimBoardTest, DeployHashesTheStoredCopyAndReadsTheBuildIdBack) {
  const ImageManifest m = Manifest("ntrace-slim");
  Result<DeployReceipt> r = board_->Deploy(m.ToDeployRequest());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->sha256, m.sha256);
  EXPECT_EQ(r->build_id, m.build_id);
  EXPECT_EQ(r->caps, m.caps);
  EXPECT_EQ(r->profile & 0xff, 1u);           // profile id: slim
  EXPECT_EQ((r->profile >> 8) & 0xff, 64u);   // XLEN
  EXPECT_EQ(r->stored_path.rfind(board_->slot_dir(), 0), 0u) << r->stored_path;
  Result<uint32_t> lo = board_->ReadReg(0x100);
  ASSERT_TRUE(lo.ok());
  EXPECT_EQ(*lo, static_cast<uint32_t>(m.build_id));
  Result<BoardIdentity> id = board_->Identify();
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(id->image_sha256, m.sha256);
}

TEST_F(SimBoardTest, TamperedImageIsRefused) {
  const ImageManifest m = Manifest("ntrace-slim");
  Result<std::vector<uint8_t>> bytes = ReadFileBytes(m.image_path);
  ASSERT_TRUE(bytes.ok());
  (*bytes)[bytes->size() / 2] ^= 0x5a;
  DeployRequest d = m.ToDeployRequest();
  d.bytes = *bytes;
  Result<DeployReceipt> r = board_->Deploy(d);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(r.status().message().find("refused"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find(m.sha256), std::string::npos);
  EXPECT_FALSE(board_->ReadReg(0x100).ok());  // nothing is loaded
  Result<BoardIdentity> id = board_->Identify();
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(id->image_sha256, "");
}

TEST_F(SimBoardTest, WrongBuildIdIsRefused) {
  const ImageManifest m = Manifest("ntrace-slim");
  DeployRequest d = m.ToDeployRequest();
  d.expected_build_id = m.build_id ^ 1;
  Result<DeployReceipt> r = board_->Deploy(d);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("build id read back"), std::string::npos)
      << r.status().message();
}

TEST_F(SimBoardTest, TamperedImageIsRefusedThroughTheBoardProcess) {
  RemoteBoardOptions o;
  o.board_path = CTTE_BINARY_DIR "/bin/ctte-board";
  Result<std::unique_ptr<RemoteBoard>> b = RemoteBoard::Spawn(o);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  const ImageManifest m = Manifest("ntrace-shallow");
  DeployRequest d = m.ToDeployRequest();
  Result<std::vector<uint8_t>> bytes = ReadFileBytes(m.image_path);
  ASSERT_TRUE(bytes.ok());
  d.bytes = *bytes;
  d.bytes.back() ^= 1;
  Result<DeployReceipt> r = (*b)->Deploy(d);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(ClassifyFailure(r.status()), FailureKind::kOther);
  EXPECT_NE(r.status().message().find("refused"), std::string::npos);
  r = (*b)->Deploy(m.ToDeployRequest());  // the genuine image still deploys
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->sha256, m.sha256);
}

TEST_F(SimBoardTest, ClockRatioIsReal) {
  DeployOrDie("ntrace-slim", 50'000'000);
  ASSERT_EQ(*board_->SetClock(ClockDomain::kSink, 150'000'000), 150'000'000u);
  RunPlan p;
  p.workload_elf = Workload("loop");
  p.iss.max_instructions = 20'000;
  Result<Capture> c = board_->Run(p);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_NEAR(static_cast<double>(c->sink_cycles) / static_cast<double>(c->fabric_cycles), 3.0,
              0.01);
  EXPECT_NEAR(static_cast<double>(c->sim_time_ps), static_cast<double>(c->fabric_cycles) * 20000.0,
              20000.0);
  EXPECT_EQ(c->fabric_hz, 50'000'000u);
}

TEST_F(SimBoardTest, DropFreeRunsEqualTheReferenceEncoder) {
  DeployOrDie("ntrace-slim");
  // A sink three times faster than the fabric keeps every configuration drop-free.
  ASSERT_TRUE(board_->SetClock(ClockDomain::kSink, 300'000'000).ok());
  // ipc_den > 1: the core idles between beats (IPC 1/ipc_den) where message bursts at IPC 1
  // would outrun the packer's byte per fabric cycle (a true overflow, tested elsewhere).
  struct Case { const char* workload; uint8_t mode, sync_mode, sync_max; uint64_t irq_every;
                uint32_t ipc_den; };
  const Case cases[] = {
      {"loop", 6, 0, 0, 0, 1},     {"loop", 3, 0, 0, 0, 1},     {"calls", 6, 0, 0, 0, 1},
      {"calls", 3, 1, 2, 0, 1},    {"ptrchase", 6, 3, 4, 0, 1}, {"ptrchase", 3, 0, 0, 0, 1},
      {"sort", 6, 1, 0, 0, 2},     {"sort", 3, 0, 0, 0, 2},     {"switch", 6, 0, 0, 0, 1},
      {"switch", 3, 3, 1, 0, 1},   {"traps", 6, 0, 0, 0, 1},    {"traps", 3, 0, 0, 0, 1},
      {"calls", 6, 0, 0, 997, 1},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(std::string(k.workload) + (k.mode == 6 ? " HTM" : " BTM") + " sync " +
                 std::to_string(k.sync_mode) + "/" + std::to_string(k.sync_max));
    RunPlan p;
    p.workload_elf = Workload(k.workload);
    p.iss.max_instructions = 300'000;
    p.iss.interrupt_every = k.irq_every;
    p.encoder = {k.mode, k.sync_mode, k.sync_max};
    p.stall = {.seed = 3, .ipc_num = 1, .ipc_den = k.ipc_den};
    Result<Capture> c = board_->Run(p);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    ASSERT_EQ(c->counters.overflow_episodes, 0u);
    EXPECT_TRUE(c->drained);
    EXPECT_TRUE(c->te_empty);
    EXPECT_FALSE(c->ring_wrapped);
    EXPECT_EQ(c->counters.bytes, c->bytes.size());
    const std::vector<uint8_t> ref = ReferenceBytes(p);
    ASSERT_EQ(c->bytes.size(), ref.size());
    EXPECT_TRUE(c->bytes == ref) << "streams differ";
  }
}

// The agent's reset after every session (trTeControl = 0) and any register write after a run
// drive the model on with no run in progress: the sink must not feed the ring and pattern of
// the run that ended (they were gone; the agent crashed in CaptureRing::Push when a session
// ended after an interrupted soak, tests/net/net_soak_attack_test.sh). The writes succeed and
// the next run is byte-identical to the first.
TEST_F(SimBoardTest, RegisterWritesAfterARunLeaveTheNextRunUnchanged) {
  DeployOrDie("ntrace-slim");
  RunPlan p;
  p.workload_elf = Workload("calls");
  p.iss.max_instructions = 20'000;
  p.encoder = {6, 0, 0};
  Result<Capture> first = board_->Run(p);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  for (const uint32_t v : {reg::kActive | reg::kEnable | reg::kInstTracing, 0u,
                           reg::kActive | reg::kEnable, 0u}) {
    ASSERT_TRUE(board_->WriteReg(reg::kTeControl, v).ok()) << v;
  }
  Result<Capture> again = board_->Run(p);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_TRUE(again->bytes == first->bytes);
}

TEST_F(SimBoardTest, WindowEdgesAndStallsKeepTheReferenceBytes) {
  DeployOrDie("ntrace-slim");
  RunPlan p;
  p.workload_elf = Workload("sort");
  p.iss.max_instructions = 60'000;
  p.window_edges = {{100, true}, {20'000, false}, {30'000, true}};
  p.stall = {.seed = 9, .ipc_num = 1, .ipc_den = 2};
  Result<Capture> c = board_->Run(p);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  ASSERT_EQ(c->counters.overflow_episodes, 0u);
  EXPECT_GT(c->fabric_cycles, c->beats * 3 / 2);  // IPC ~ 0.5
  EXPECT_TRUE(c->bytes == ReferenceBytes(p)) << "streams differ";
}

TEST_F(SimBoardTest, CaptureRingWrapsAndSaysSo) {
  DeployOrDie("ntrace-slim");
  RunPlan p;
  p.workload_elf = Workload("calls");
  p.iss.max_instructions = 20'000;
  Result<Capture> full = board_->Run(p);
  ASSERT_TRUE(full.ok());
  ASSERT_GT(full->bytes.size(), 256u);
  EXPECT_FALSE(full->ring_wrapped);
  p.ring_bytes = 256;
  Result<Capture> c = board_->Run(p);
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->ring_wrapped);
  EXPECT_EQ(c->bytes_received, full->bytes.size());
  ASSERT_EQ(c->bytes.size(), 256u);
  EXPECT_TRUE(std::equal(c->bytes.begin(), c->bytes.end(), full->bytes.end() - 256));
}

// Counts the announced losses in a stream and checks each one's recovery.
struct LossScan {
  uint64_t errors = 0, recoveries = 0, corruptions = 0;
  std::string problem;
};
LossScan ScanLosses(const std::vector<uint8_t>& bytes) {
  LossScan s;
  oracle::MessageReader reader(bytes, nullptr);
  oracle::Message m, prev;
  bool after_error = false;
  while (reader.Next(&m)) {
    if (after_error && s.problem.empty()) {
      const bool sync7 = m.is_sync() && m.get(oracle::Field::kSync) == oracle::kSyncOverrunRestart;
      const bool close = m.type() == oracle::Tcode::kProgTraceCorrelation;
      if (sync7 && m.get(oracle::Field::kIcnt) == 0) {
        ++s.recoveries;
      } else if (!close) {
        s.problem = "after the Error at offset " + std::to_string(prev.offset) + ": " +
                    m.ToString();
      }
    }
    after_error = m.type() == oracle::Tcode::kError &&
                  (m.get(oracle::Field::kEcode) & oracle::kEcodeProgramTraceLost) != 0;
    if (after_error) ++s.errors;
    prev = m;
  }
  s.corruptions = reader.corruptions();
  return s;
}

TEST_F(SimBoardTest, ShallowImageUnderBackpressureAnnouncesEveryLoss) {
  DeployOrDie("ntrace-shallow", 90'000'000);
  RunPlan p;
  p.workload_elf = Workload("calls");
  p.iss.max_instructions = 100'000;
  p.sink = {.kind = BackpressureKind::kBursty, .ready_min = 2, .ready_max = 8, .stall_min = 20,
            .stall_max = 200};
  p.sink.seed = 77;
  Result<Capture> c = board_->Run(p);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE(c->drained);
  EXPECT_FALSE(c->ring_wrapped);
  ASSERT_GT(c->counters.overflow_episodes, 0u);
  EXPECT_GT(c->counters.records_dropped, 0u);
  EXPECT_EQ(c->counters.bytes, c->bytes.size());
  const LossScan s = ScanLosses(c->bytes);
  EXPECT_EQ(s.problem, "");
  EXPECT_EQ(s.corruptions, 0u);
  EXPECT_EQ(s.errors, c->counters.overflow_episodes);
  EXPECT_GE(s.recoveries + 1, s.errors);  // the last may close the window instead
  EXPECT_GT(s.recoveries, 0u);

  // Decoded, the stream is a series of contiguous runs of the reference, cut only at the
  // announced losses: no silent gap.
  Result<oracle::ProgramImage> image = oracle::ProgramImage::Load(p.workload_elf);
  ASSERT_TRUE(image.ok());
  std::vector<uint64_t> ref;
  {
    oracle::IssOptions o;
    o.max_instructions = p.iss.max_instructions;
    oracle::Iss iss(*image, o);
    oracle::Retired r;
    while (iss.Step(&r)) {
      if (r.retires) ref.push_back(r.pc);
    }
  }
  oracle::CollectingSink sink;
  oracle::Reconstructor rec(*image, {}, &sink);
  oracle::MessageReader reader(c->bytes, nullptr);
  oracle::Message m;
  while (reader.Next(&m)) rec.OnMessage(m);
  rec.Finish();
  EXPECT_EQ(rec.decode_errors(), 0u);
  std::vector<uint64_t> cuts = {0};
  for (const oracle::Marker& mk : sink.markers_) {
    if (mk.kind == oracle::Marker::Kind::kLoss) cuts.push_back(mk.pc_index);
  }
  cuts.push_back(sink.pcs_.size());
  EXPECT_EQ(cuts.size() - 2, s.errors);
  size_t pos = 0;  // segments appear in order, each one contiguous in the reference
  for (size_t i = 0; i + 1 < cuts.size(); ++i) {
    const auto b = sink.pcs_.begin() + static_cast<long>(cuts[i]);
    const auto e = sink.pcs_.begin() + static_cast<long>(cuts[i + 1]);
    if (b == e) continue;
    const auto at = std::search(ref.begin() + static_cast<long>(pos), ref.end(), b, e);
    ASSERT_NE(at, ref.end()) << "segment " << i << " (" << (e - b) << " PCs from 0x" << std::hex
                             << *b << ") is not a contiguous run of the reference";
    pos = static_cast<size_t>(at - ref.begin()) + static_cast<size_t>(e - b);
  }
  EXPECT_GT(sink.pcs_.size(), 0u);
  EXPECT_LT(sink.pcs_.size(), ref.size());  // something was lost, and announced

  // Same seed: the same stream, byte for byte.
  Result<Capture> again = board_->Run(p);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->bytes == c->bytes);
  EXPECT_EQ(again->sink_cycles, c->sink_cycles);
}

TEST_F(SimBoardTest, FstWaveformIsWrittenOnRequest) {
  DeployOrDie("ntrace-slim");
  const std::string fst = board_->slot_dir() + "/run.fst";
  RunPlan p;
  p.workload_elf = Workload("loop");
  p.iss.max_instructions = 300;
  p.fst_path = fst;
  Result<Capture> c = board_->Run(p);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  board_->TEST_DropModel();  // closes the waveform
  ASSERT_TRUE(std::filesystem::exists(fst));
  EXPECT_GT(std::filesystem::file_size(fst), 100u);
}

TEST_F(SimBoardTest, RunWithoutImageOrWithBadPlanIsAnError) {
  RunPlan p;
  p.workload_elf = Workload("loop");
  Result<Capture> c = board_->Run(p);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("no image"), std::string::npos);
  DeployOrDie("ntrace-slim");
  p.workload_elf = "/nonexistent.elf";
  c = board_->Run(p);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("/nonexistent.elf"), std::string::npos);
  p.workload_elf = Workload("loop");
  p.stall.ipc_num = 0;
  EXPECT_FALSE(board_->Run(p).ok());
}

}  // namespace
}  // namespace ctte::lab
