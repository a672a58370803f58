// Board protocol: framing round trips, malformed frames, and a RemoteBoard talking to the board
// server (over a socketpair, serving a FakeBoard in a thread).
#include "lab/protocol.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include <nlohmann/json.hpp>

#include "lab/board_server.h"
#include "lab/remote_board.h"
#include "lab/wire.h"
#include "tests/lab/fake_board.h"
#include "tests/lab/fault_injecting_board.h"

namespace ctte::lab {
namespace {

TEST(ProtocolTest, FrameRoundTripsThroughBytes) {
  Frame f{R"({"v":1,"id":7,"op":"identify"})", {0, 1, 2, 255}};
  const std::vector<uint8_t> bytes = EncodeFrame(f);
  ASSERT_EQ(bytes.size(), kFramePrefixBytes + f.header.size() + 4);
  size_t used = 0;
  Result<Frame> g = DecodeFrame(bytes, 0, &used);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(used, bytes.size());
  EXPECT_EQ(g->header, f.header);
  EXPECT_EQ(g->payload, f.payload);
}

// Resident memory of this process in bytes (/proc/self/statm), 0 when unreadable.
uint64_t ResidentBytes() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  unsigned long long size = 0, resident = 0;
  const int n = std::fscanf(f, "%llu %llu", &size, &resident);
  std::fclose(f);
  return n == 2 ? resident * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE)) : 0;
}

// Issue #27 (M6): a 12-byte prefix announcing the largest payload pins no memory before the
// bytes come; the reader grows the payload as they arrive (kPayloadChunkBytes at a time).
TEST(ProtocolTest, AnAnnouncedPayloadReservesNoMemoryBeforeItsBytesArrive) {
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  std::vector<uint8_t> prefix = EncodeFrame(Frame{"{}", {}});
  const uint32_t plen = kMaxPayloadBytes;
  for (int i = 0; i < 4; ++i) prefix[8 + i] = static_cast<uint8_t>(plen >> (8 * i));
  prefix.push_back(0xab);  // one payload byte
  ASSERT_EQ(::write(sv[1], prefix.data(), prefix.size()), static_cast<ssize_t>(prefix.size()));
  const uint64_t before = ResidentBytes();
  ASSERT_GT(before, 0u);
  uint64_t during = 0;
  std::thread reader([&] {
    FrameReader r(sv[0]);
    Result<Frame> f = r.Read(1'500);  // waits for bytes that never come
    EXPECT_FALSE(f.ok());
    EXPECT_EQ(f.status().code(), Status::Code::kTimeout) << f.status().ToString();
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  during = ResidentBytes();
  reader.join();
  ::close(sv[0]);
  ::close(sv[1]);
  EXPECT_LT(during, before + (uint64_t{64} << 20))
      << "resident " << before << " -> " << during << " bytes while 1 of " << plen
      << " payload bytes had arrived";
}

TEST(ProtocolTest, IncompleteFrameAsksForMore) {
  const std::vector<uint8_t> bytes = EncodeFrame(Frame{"{}", {9, 9, 9}});
  for (size_t n = 0; n < bytes.size(); ++n) {
    size_t used = 0;
    Result<Frame> g = DecodeFrame(std::span(bytes.data(), n), 0, &used);
    ASSERT_FALSE(g.ok());
    EXPECT_EQ(g.status().code(), Status::Code::kUnavailable) << n;
  }
}

TEST(ProtocolTest, BadMagicIsCorruptionNamingTheOffset) {
  std::vector<uint8_t> bytes = EncodeFrame(Frame{"{}", {}});
  bytes[0] = 'X';
  size_t used = 0;
  Result<Frame> g = DecodeFrame(bytes, 100, &used);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), Status::Code::kCorruption);
  EXPECT_NE(g.status().message().find("offset 100"), std::string::npos) << g.status().message();
}

TEST(ProtocolTest, OversizedHeaderLengthIsCorruption) {
  std::vector<uint8_t> bytes = EncodeFrame(Frame{"{}", {}});
  bytes[7] = 0x7f;  // header length ~2 GiB
  size_t used = 0;
  Result<Frame> g = DecodeFrame(bytes, 0, &used);
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("header length"), std::string::npos);
}

TEST(ProtocolTest, ReaderReportsTruncationAndCleanEof) {
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  const std::vector<uint8_t> a = EncodeFrame(Frame{"{\"a\":1}", {1, 2}});
  ASSERT_TRUE(WriteFrame(sv[1], Frame{"{\"a\":1}", {1, 2}}).ok());
  ASSERT_EQ(::write(sv[1], a.data(), 5), 5);  // a torn second frame
  ::close(sv[1]);
  FrameReader r(sv[0]);
  Result<Frame> f = r.Read(1000);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->payload, (std::vector<uint8_t>{1, 2}));
  f = r.Read(1000);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), Status::Code::kCorruption);
  EXPECT_EQ(ClassifyFailure(f.status()), FailureKind::kStreamTruncated);
  EXPECT_NE(f.status().message().find("offset " + std::to_string(a.size() + 5)),
            std::string::npos) << f.status().message();
  ::close(sv[0]);
}

// WriteFrame sends the payload from where it lies (sendmsg, writev on a pipe): the bytes on the
// wire are EncodeFrame's, also when the peer takes them in many partial writes.
TEST(ProtocolTest, WriterSendsEncodeFramesBytesOverSocketsAndPipes) {
  std::vector<uint8_t> payload(3u << 20);
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<uint8_t>(i * 131 + 7);
  const Frame frame{R"({"capture":{"bytes":3145728}})", payload};
  const std::vector<uint8_t> want = EncodeFrame(frame);
  for (bool socket : {true, false}) {
    int fds[2];
    if (socket) {
      ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
    } else {
      ASSERT_EQ(::pipe(fds), 0);
    }
    const int rd = fds[0], wr = fds[1];
    Status sent = Status::Internal("unset");
    std::thread writer([&] { sent = WriteFrame(wr, frame, socket ? 10'000 : -1); });
    std::vector<uint8_t> got;
    uint8_t buf[65536];
    while (got.size() < want.size()) {
      const ssize_t n = ::read(rd, buf, sizeof buf);
      ASSERT_GT(n, 0);
      got.insert(got.end(), buf, buf + n);
    }
    writer.join();
    EXPECT_TRUE(sent.ok()) << sent.ToString();
    EXPECT_TRUE(got == want) << (socket ? "socket" : "pipe");
    ::close(rd);
    ::close(wr);
  }
  int sv[2];  // an empty payload: the prefix and header only
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  ASSERT_TRUE(WriteFrame(sv[1], Frame{"{}", {}}).ok());
  FrameReader r(sv[0]);
  Result<Frame> f = r.Read(1000);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->header, "{}");
  EXPECT_TRUE(f->payload.empty());
  ::close(sv[0]);
  ::close(sv[1]);
}

TEST(ProtocolTest, ReaderTimesOut) {
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  FrameReader r(sv[0]);
  Result<Frame> f = r.Read(50);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), Status::Code::kTimeout);
  ::close(sv[0]);
  ::close(sv[1]);
}

TEST(ProtocolTest, WriterToAPeerThatNeverReadsTimesOut) {
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  Frame big{"{}", std::vector<uint8_t>(16u << 20, 0xAB)};
  const Status s = WriteFrame(sv[0], big, 100);
  EXPECT_EQ(s.code(), Status::Code::kTimeout) << s.ToString();
  ::close(sv[0]);
  ::close(sv[1]);
}

// A RemoteBoard client connected to a server thread that serves a FakeBoard (through a
// FaultInjectingBoard, so that tests can make the served board fail).
class ServedFakeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    int sv[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    server_fd_ = sv[1];
    server_ = std::thread([this] { served_ = ServeBoard(faulty_, server_fd_, server_fd_, {}); });
    client_ = RemoteBoard::Connect(sv[0], RemoteBoardOptions{});
  }
  void TearDown() override {
    EXPECT_TRUE(client_->Shutdown().ok());
    server_.join();
    EXPECT_TRUE(served_.ok()) << served_.ToString();
    ::close(server_fd_);
  }
  FakeBoard fake_;
  FaultInjectingBoard faulty_{&fake_};
  int server_fd_ = -1;
  std::thread server_;
  Status served_;
  std::unique_ptr<RemoteBoard> client_;
};

TEST_F(ServedFakeTest, EveryRequestRoundTrips) {
  Result<BoardIdentity> id = client_->Identify();
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  EXPECT_EQ(id->kind, "remote:fake");
  EXPECT_EQ(id->capabilities, (std::vector<std::string>{"deploy", "run"}));
  EXPECT_EQ(id->max_ring_bytes, FakeBoard::kMaxRingBytes);  // the board's capacity travels

  DeployRequest d;
  d.name = "x";
  d.bytes = {1, 2, 3};
  Result<DeployReceipt> r = client_->Deploy(d);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->sha256, Sha256Hex(std::span<const uint8_t>(d.bytes)));
  EXPECT_EQ(r->build_id, 0x0123456789abcdefull);
  d.expected_sha256 = std::string(64, '0');
  r = client_->Deploy(d);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(r.status().message().find("refused"), std::string::npos);

  Result<uint64_t> hz = client_->SetClock(ClockDomain::kSink, 40'000'000);
  ASSERT_TRUE(hz.ok());
  EXPECT_EQ(*hz, 1'500'000'000u / 38);
  EXPECT_EQ(*client_->ReadClock(ClockDomain::kSink), *hz);
  EXPECT_EQ(*client_->ReadClock(ClockDomain::kFabric), 100'000'000u);

  ASSERT_TRUE(client_->WriteReg(0x10, 0xdeadbeef).ok());
  EXPECT_EQ(*client_->ReadReg(0x10), 0xdeadbeefu);
  Result<uint32_t> missing = client_->ReadReg(0x20);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Status::Code::kNotFound);

  RunPlan plan;
  plan.workload_elf = "w.elf";
  plan.ring_bytes = 1000;
  plan.model_seed = 5;
  plan.iss.interrupt_at = {10, 20};
  plan.window_edges = {{3, true}, {9, false}};
  plan.sink = {.kind = BackpressureKind::kBursty, .ready_min = 2, .ready_max = 3, .stall_min = 4,
               .stall_max = 5};
  plan.sink.seed = 0xffffffffffffffffull;
  Result<Capture> c = client_->Run(plan);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  ASSERT_EQ(c->bytes.size(), 1000u);
  EXPECT_EQ(c->bytes[3], static_cast<uint8_t>(3 * 7 + 5));
  EXPECT_EQ(c->counters.messages, 3u);
  EXPECT_TRUE(c->te_empty);
  EXPECT_EQ(fake_.last_plan_.iss.interrupt_at, plan.iss.interrupt_at);
  ASSERT_EQ(fake_.last_plan_.window_edges.size(), 2u);
  EXPECT_EQ(fake_.last_plan_.window_edges[1].before_beat, 9u);
  EXPECT_FALSE(fake_.last_plan_.window_edges[1].open);
  EXPECT_EQ(fake_.last_plan_.sink.kind, BackpressureKind::kBursty);
  EXPECT_EQ(fake_.last_plan_.sink.seed, plan.sink.seed);
  EXPECT_EQ(fake_.last_plan_.sink.stall_max, 5u);
}

TEST_F(ServedFakeTest, FailureKindsTravelAsDataWithTheMessageUnchanged) {
  faulty_.Inject({.method = BoardMethod::kRun,
                  .action = FaultAction::kFail,
                  .error = RtlAssertionError("ctte_packer.sv:99: two end-of-message MSEOs")});
  faulty_.Inject({.method = BoardMethod::kRun, .nth = 2, .action = FaultAction::kTimeout});
  faulty_.Inject({.method = BoardMethod::kReadClock, .action = FaultAction::kDie});
  // Text that looks like a kind is only text.
  faulty_.Inject({.method = BoardMethod::kIdentify,
                  .error = Status::Internal("RTL assertion: (only the words)")});
  RunPlan plan;
  plan.workload_elf = "w.elf";
  Result<Capture> c = client_->Run(plan);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(ClassifyFailure(c.status()), FailureKind::kRtlAssertion);
  EXPECT_EQ(c.status().ToString(),
            "Internal: RTL assertion: ctte_packer.sv:99: two end-of-message MSEOs");
  c = client_->Run(plan);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(ClassifyFailure(c.status()), FailureKind::kBoardTimeout);
  EXPECT_EQ(c.status().code(), Status::Code::kTimeout);
  EXPECT_TRUE(client_->Run(plan).ok());
  Result<uint64_t> hz = client_->ReadClock(ClockDomain::kFabric);
  ASSERT_FALSE(hz.ok());
  EXPECT_EQ(ClassifyFailure(hz.status()), FailureKind::kBoardDied);
  Result<BoardIdentity> id = client_->Identify();
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(ClassifyFailure(id.status()), FailureKind::kOther);
  EXPECT_TRUE(client_->alive());  // the served board answered every time
}

// The manifest's register map travels with the deploy (ZynqBoard needs it); a malformed one is
// refused by the server naming the key.
TEST(BoardServerTest, DeployCarriesTheRegisterMap) {
  struct Recording : FakeBoard {
    DeployRequest last;
    Result<DeployReceipt> Deploy(const DeployRequest& r) override {
      last = r;
      return FakeBoard::Deploy(r);
    }
  };
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  Recording fake;
  Status served;
  std::thread server([&] { served = ServeBoard(fake, sv[1], sv[1], {}); });
  {
    std::unique_ptr<RemoteBoard> client = RemoteBoard::Connect(sv[0], RemoteBoardOptions{});
    DeployRequest d;
    d.name = "img";
    d.bytes = {1, 2, 3};
    d.registers = {{"trTeControl", 0x0}, {"cttehCoreStatus", 0x804}};
    ASSERT_TRUE(client->Deploy(d).ok());
    EXPECT_EQ(fake.last.registers, d.registers);
    d.registers.clear();
    ASSERT_TRUE(client->Deploy(d).ok());
    EXPECT_TRUE(fake.last.registers.empty());
    (void)client->Shutdown();
  }
  server.join();
  ::close(sv[1]);
  int raw[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, raw), 0);
  std::thread server2([&] { served = ServeBoard(fake, raw[1], raw[1], {}); });
  FrameReader reader(raw[0]);
  ASSERT_TRUE(WriteFrame(raw[0], Frame{R"({"v":1,"id":1,"op":"deploy","name":"x","registers":{"a":-1}})", {1}}).ok());
  Result<Frame> f = reader.Read(5000);
  ASSERT_TRUE(f.ok());
  EXPECT_NE(f->header.find("registers.a: expected an unsigned 32-bit offset"), std::string::npos)
      << f->header;
  ::close(raw[0]);
  server2.join();
  ::close(raw[1]);
}

TEST(BoardServerTest, BadRequestsGetErrorsAndTheServerGoesOn) {
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  FakeBoard fake;
  Status served;
  std::thread server([&] { served = ServeBoard(fake, sv[1], sv[1], {}); });
  FrameReader reader(sv[0]);
  const auto ask = [&](const std::string& header) {
    EXPECT_TRUE(WriteFrame(sv[0], Frame{header, {}}).ok());
    Result<Frame> f = reader.Read(5000);
    EXPECT_TRUE(f.ok());
    return f.ok() ? f->header : std::string();
  };
  EXPECT_NE(ask("not json").find("not a JSON object"), std::string::npos);
  EXPECT_NE(ask(R"({"v":2,"id":1,"op":"identify"})").find("protocol version 2"),
            std::string::npos);
  EXPECT_NE(ask(R"({"v":1,"id":2,"op":"frobnicate"})").find("unknown op"), std::string::npos);
  EXPECT_NE(ask(R"({"v":1,"id":3,"op":"run","plan":{"workload_elf":"w","ring_bytes":"big"}})")
                .find("plan.ring_bytes: expected an unsigned integer"),
            std::string::npos);
  EXPECT_NE(ask(R"({"v":1,"id":4,"op":"run","plan":{"workload_elf":"w","window_edges":[{"open":true}]}})")
                .find("plan.window_edges[0].before_beat: missing"),
            std::string::npos);
  EXPECT_NE(ask(R"({"v":1,"id":5,"op":"TEST_abort"})").find("unknown op"), std::string::npos);
  EXPECT_NE(ask(R"({"v":1,"id":6,"op":"identify"})").find("\"ok\":true"), std::string::npos);
  EXPECT_NE(ask(R"({"v":1,"id":7,"op":"frobnicate"})").find("\"kind\":\"other\""),
            std::string::npos);
  // A malformed frame ends the session with one error response.
  const char junk[] = "GARBAGE-GARBAGE";
  ASSERT_EQ(::write(sv[0], junk, sizeof junk - 1), static_cast<ssize_t>(sizeof junk - 1));
  Result<Frame> f = reader.Read(5000);
  ASSERT_TRUE(f.ok());
  EXPECT_NE(f->header.find("bad frame magic"), std::string::npos) << f->header;
  server.join();
  EXPECT_EQ(served.code(), Status::Code::kCorruption);
  ::close(sv[0]);
  ::close(sv[1]);
}

// An identity without max_ring_bytes (a board of an older protocol) reads as 0: not reported,
// so the runner does not refuse a plan up front; a wrong type is an error with its path.
TEST(WireIdentityTest, MaxRingBytesIsOptionalAndTyped) {
  BoardIdentity id;
  id.max_ring_bytes = 7;
  ASSERT_TRUE(wire::FromJson(wire::Json{{"kind", "k"}, {"serial", "s"}}, "identity", &id).ok());
  EXPECT_EQ(id.max_ring_bytes, 0u);
  BoardIdentity round;
  id.max_ring_bytes = uint64_t{64} << 20;
  ASSERT_TRUE(wire::FromJson(wire::ToJson(id), "identity", &round).ok());
  EXPECT_EQ(round.max_ring_bytes, uint64_t{64} << 20);
  Status bad = wire::FromJson(wire::Json{{"kind", "k"}, {"serial", "s"}, {"max_ring_bytes", "x"}},
                              "identity", &round);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("identity.max_ring_bytes"), std::string::npos) << bad.ToString();
}

}  // namespace
}  // namespace ctte::lab
