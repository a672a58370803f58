// RemoteBoard: the board protocol's client (see remote_board.h). Child supervision is
// lab/child_process.cc; this file turns requests into frames and replies into Board results.
#include "lab/remote_board.h"

#include <nlohmann/json.hpp>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "base/files.h"
#include "base/json.h"
#include "base/sha256.h"
#include "base/text.h"
#include "lab/wire.h"

namespace ctte::lab {

struct RemoteBoard::Reply {
  nlohmann::json header;  ///< a JSON object with "ok": true
  std::vector<uint8_t> payload;
};

namespace {
using wire::Json;
constexpr int kDestructorShutdownMs = 5'000;

// A child that died without an error response has only its stderr to say why. These are the
// markers the image wrapper, Verilator's runtime and assert() print for a design that stopped
// itself (docs/board-protocol.md, "Failures the client tells apart").
bool StderrShowsRtlAssertion(const std::string& text) {
  for (const char* marker : {"RTL assertion", "Assertion failed", "$fatal", "%Fatal", "%Error"}) {
    if (text.find(marker) != std::string::npos) return true;
  }
  return false;
}

// The member `key` of the reply object, or Corruption naming the op.
Result<const Json*> Member(const Json& h, const char* op, const char* key) {
  auto it = h.find(key);
  if (it == h.end()) return Status::Corruption(std::string(op) + " response: " + key + " missing");
  return &*it;
}
}  // namespace

RemoteBoard::RemoteBoard(RemoteBoardOptions options) : options_(std::move(options)) {}

Result<std::unique_ptr<RemoteBoard>> RemoteBoard::Spawn(const RemoteBoardOptions& options) {
  if (::access(options.board_path.c_str(), X_OK) != 0) {
    return Status::NotFound("board executable " + options.board_path + ": " +
                            std::strerror(errno));
  }
  std::unique_ptr<RemoteBoard> b(new RemoteBoard(options));
  CTTE_RETURN_IF_ERROR(b->StartChild());
  return b;
}

std::unique_ptr<RemoteBoard> RemoteBoard::Connect(int fd, const RemoteBoardOptions& options) {
  std::unique_ptr<RemoteBoard> b(new RemoteBoard(options));
  b->fd_ = fd;
  b->reader_ = std::make_unique<FrameReader>(fd);
  return b;
}

RemoteBoard::~RemoteBoard() {
  if (fd_ >= 0 && child_ != nullptr && child_->running()) {
    (void)ShutdownWithin(kDestructorShutdownMs);
  }
  if (fd_ >= 0 || (child_ != nullptr && child_->running())) Reap(/*kill_first=*/true);
}

Status RemoteBoard::StartChild() {
  std::vector<std::string> argv = {options_.board_path};
  argv.insert(argv.end(), options_.args.begin(), options_.args.end());
  int fd = -1;
  CTTE_ASSIGN_OR_RETURN(child_, ChildProcess::Start(argv, &fd));
  fd_ = fd;
  reader_ = std::make_unique<FrameReader>(fd_);
  death_.clear();
  return Status::Ok();
}

std::string RemoteBoard::Reap(bool kill_first) {
  {
    std::lock_guard<std::mutex> lk(write_mu_);
    if (fd_ >= 0) ::close(fd_);  // first, so that a live child sees EOF and exits
    fd_ = -1;
  }
  reader_.reset();
  if (child_ == nullptr || !child_->running()) return "stream closed";
  return child_->Wait(kill_first);
}

Status RemoteBoard::Dead(const std::string& how) {
  const std::string tail =
      child_ != nullptr ? child_->StderrTail(options_.stderr_tail_lines) : "(empty)";
  death_ = how + "; stderr: " + tail;
  if (StderrShowsRtlAssertion(tail)) return RtlAssertionError("board died: " + death_);
  return BoardDiedError(death_);
}

Result<RemoteBoard::Reply> RemoteBoard::Call(const std::string& op, Json fields,
                                             std::vector<uint8_t> payload, int timeout_ms) {
  if (fd_ < 0) {
    return BoardDiedError(death_.empty() ? "no board process (call Respawn())"
                                         : "earlier: " + death_ + " (call Respawn())");
  }
  const uint64_t id = next_id_++;
  fields["v"] = kProtocolVersion;
  fields["id"] = id;
  fields["op"] = op;
  const int64_t deadline = MonotonicMs() + timeout_ms;
  const auto timed_out = [&] {
    Reap(/*kill_first=*/true);
    char buf[96];
    std::snprintf(buf, sizeof buf, "%g s (op %s); board killed",
                  static_cast<double>(timeout_ms) / 1000.0, op.c_str());
    death_ = std::string("timeout after ") + buf;
    return BoardTimeoutError(buf);
  };
  Status ws;
  {
    std::lock_guard<std::mutex> lk(write_mu_);
    ws = WriteFrame(fd_, Frame{fields.dump(), std::move(payload)}, timeout_ms);
  }
  if (ws.code() == Status::Code::kTimeout) return timed_out();
  if (!ws.ok()) return Dead(Reap(/*kill_first=*/false));
  Result<Frame> resp = Status::Internal("unread");
  bool silent = false;
  for (;;) {  // heartbeats (the server's signs of life while the request executes) are skipped
    const int64_t left = deadline - MonotonicMs();
    int wait = left > 0 ? static_cast<int>(left) : 1;
    silent = options_.silence_timeout_ms > 0 && options_.silence_timeout_ms < wait;
    if (silent) wait = options_.silence_timeout_ms;
    resp = reader_->Read(wait);
    if (!resp.ok() || resp->header.find("\"heartbeat\"") == std::string::npos) break;
    Result<nlohmann::ordered_json> hb = ParseJsonText(resp->header, "heartbeat header");
    if (!hb.ok() || !hb->is_object() || !hb->contains("heartbeat")) break;
  }
  if (!resp.ok()) {
    const Status& rs = resp.status();
    if (rs.code() == Status::Code::kTimeout && silent) {
      Reap(/*kill_first=*/true);
      death_ = "agent silent for " + std::to_string(options_.silence_timeout_ms) +
               " ms (no reply, no heartbeat; op " + op + ")";
      return BoardTimeoutError(death_);
    }
    if (rs.code() == Status::Code::kTimeout) return timed_out();
    if (rs.code() == Status::Code::kUnavailable) return Dead(Reap(/*kill_first=*/false));
    // A torn frame: the board went away mid-reply. Garbage: the stream cannot be trusted.
    const bool torn = ClassifyFailure(rs) == FailureKind::kStreamTruncated;
    const std::string how = Reap(/*kill_first=*/!torn);
    if (torn) return Dead(how + " (" + rs.message() + ")");
    death_ = "protocol error: " + rs.message();
    return Status::Corruption("board protocol (op " + op + "): " + rs.message());
  }
  Result<nlohmann::ordered_json> parsed = ParseJsonText(resp->header, "response header");
  if (!parsed.ok() || !parsed->is_object()) {
    return Status::Corruption("board protocol (op " + op + "): response header is not a JSON " +
                              "object" + (parsed.ok() ? "" : ": " + parsed.status().message()));
  }
  Json h = *parsed;
  uint64_t rid = 0;
  bool ok = false;
  Status s = wire::GetU64(h, "response", "id", &rid);
  if (s.ok()) s = wire::GetBool(h, "response", "ok", &ok);
  if (!s.ok()) return Status::Corruption("board protocol (op " + op + "): " + s.message());
  if (!ok) {
    auto e = h.find("error");
    return wire::StatusFromJson(e != h.end() ? *e : Json());
  }
  if (rid != id) {
    return Status::Corruption("board protocol (op " + op + "): response id " +
                              std::to_string(rid) + ", expected " + std::to_string(id));
  }
  return Reply{std::move(h), std::move(resp->payload)};
}

Result<BoardIdentity> RemoteBoard::Identify() {
  CTTE_ASSIGN_OR_RETURN(const Reply r,
                        Call("identify", Json::object(), {}, options_.request_timeout_ms));
  CTTE_ASSIGN_OR_RETURN(const Json* j, Member(r.header, "identify", "identity"));
  BoardIdentity id;
  CTTE_RETURN_IF_ERROR(wire::FromJson(*j, "identity", &id));
  id.kind = "remote:" + id.kind;
  return id;
}

Result<std::string> RemoteBoard::EnsurePayload(const std::vector<uint8_t>& bytes) {
  const std::string sha = Sha256Hex(bytes);
  CTTE_ASSIGN_OR_RETURN(const Reply have, Call("have", Json{{"sha256", sha}}, {},
                                               options_.request_timeout_ms));
  bool has = false;
  CTTE_RETURN_IF_ERROR(wire::GetBool(have.header, "have response", "have", &has));
  if (!has) {
    Status s = Call("put", Json{{"sha256", sha}}, bytes, options_.deploy_timeout_ms).status();
    if (!s.ok()) return s;  // its kind (a dead agent) decides what the runner does
  }
  return sha;
}

Result<DeployReceipt> RemoteBoard::Deploy(const DeployRequest& request) {
  last_deploy_skipped_ = false;
  std::vector<uint8_t> bytes = request.bytes;
  if (bytes.empty()) {
    // The target is another process: ship the image itself, never just a path.
    CTTE_ASSIGN_OR_RETURN(bytes, ReadFileBytes(request.path));
  }
  Json f{{"name", request.name},
         {"expected_sha256", request.expected_sha256},
         {"expected_build_id", Hex64(request.expected_build_id)}};
  if (!request.registers.empty()) {
    Json regs = Json::object();
    for (const auto& [name, offset] : request.registers) regs[name] = offset;
    f["registers"] = std::move(regs);
  }
  if (options_.payload_cache) {
    // By hash: the bytes travel only when the agent's cache lacks them.
    const std::string sha = Sha256Hex(bytes);
    CTTE_ASSIGN_OR_RETURN(const Reply have, Call("have", Json{{"sha256", sha}}, {},
                                                 options_.request_timeout_ms));
    bool has = false;
    CTTE_RETURN_IF_ERROR(wire::GetBool(have.header, "have response", "have", &has));
    f["payload_sha256"] = sha;
    if (has) bytes.clear();
  }
  CTTE_ASSIGN_OR_RETURN(const Reply r, Call("deploy", std::move(f), std::move(bytes),
                                            options_.deploy_timeout_ms));
  if (auto sk = r.header.find("skipped"); sk != r.header.end() && sk->is_boolean()) {
    last_deploy_skipped_ = sk->get<bool>();
  }
  CTTE_ASSIGN_OR_RETURN(const Json* j, Member(r.header, "deploy", "receipt"));
  DeployReceipt receipt;
  CTTE_RETURN_IF_ERROR(wire::FromJson(*j, "receipt", &receipt));
  receipt.skipped = last_deploy_skipped_;
  return receipt;
}

Result<uint64_t> RemoteBoard::SetClock(ClockDomain domain, uint64_t hz) {
  CTTE_ASSIGN_OR_RETURN(const Reply r,
                        Call("set_clock", Json{{"domain", ClockDomainName(domain)}, {"hz", hz}},
                             {}, options_.request_timeout_ms));
  uint64_t v = 0;
  CTTE_RETURN_IF_ERROR(wire::GetU64(r.header, "response", "hz", &v));
  return v;
}

Result<uint64_t> RemoteBoard::ReadClock(ClockDomain domain) {
  CTTE_ASSIGN_OR_RETURN(const Reply r, Call("read_clock", Json{{"domain", ClockDomainName(domain)}},
                                            {}, options_.request_timeout_ms));
  uint64_t v = 0;
  CTTE_RETURN_IF_ERROR(wire::GetU64(r.header, "response", "hz", &v));
  return v;
}

Status RemoteBoard::WriteReg(uint32_t offset, uint32_t value) {
  return Call("write_reg", Json{{"offset", offset}, {"value", value}}, {},
              options_.request_timeout_ms)
      .status();
}

Result<uint32_t> RemoteBoard::ReadReg(uint32_t offset) {
  CTTE_ASSIGN_OR_RETURN(const Reply r, Call("read_reg", Json{{"offset", offset}}, {},
                                            options_.request_timeout_ms));
  uint32_t v = 0;
  CTTE_RETURN_IF_ERROR(wire::GetU32(r.header, "response", "value", &v));
  return v;
}

Result<Capture> RemoteBoard::Run(const RunPlan& plan) {
  Json f{{"plan", wire::ToJson(plan)}};
  if (options_.payload_cache && !plan.workload_elf.empty()) {
    // The workload ELF is a payload too: the agent runs its cached copy, named by hash.
    CTTE_ASSIGN_OR_RETURN(const std::vector<uint8_t> elf, ReadFileBytes(plan.workload_elf));
    CTTE_ASSIGN_OR_RETURN(const std::string sha,
                          EnsurePayload(elf));
    f["workload_sha256"] = sha;
    f["plan"]["workload_elf"] = "";  // a path of this host means nothing to the agent
  }
  CTTE_ASSIGN_OR_RETURN(Reply r, Call("run", std::move(f), {}, options_.run_timeout_ms));
  CTTE_ASSIGN_OR_RETURN(const Json* j, Member(r.header, "run", "capture"));
  Capture c;
  CTTE_RETURN_IF_ERROR(wire::FromJson(*j, "capture", &c));
  c.bytes = std::move(r.payload);
  return c;
}

Status RemoteBoard::ShutdownWithin(int timeout_ms) {
  if (fd_ < 0) return Status::Ok();
  const Status s = Call("shutdown", Json::object(), {}, timeout_ms).status();
  if (fd_ >= 0) Reap(/*kill_first=*/false);
  return s;
}

Status RemoteBoard::Respawn() {
  if (fd_ >= 0 || (child_ != nullptr && child_->running())) Reap(/*kill_first=*/true);
  if (options_.board_path.empty()) {
    return Status::InvalidArgument("this RemoteBoard has no child to respawn");
  }
  return StartChild();
}

Status RemoteBoard::SendHeartbeat(int timeout_ms) {
  static const std::string kBeat = Json{{"v", kProtocolVersion}, {"id", 0}, {"op", "heartbeat"}}.dump();
  std::lock_guard<std::mutex> lk(write_mu_);
  if (fd_ < 0) return BoardDiedError("no connection");
  return WriteFrame(fd_, Frame{kBeat, {}}, timeout_ms);
}

Status RemoteBoard::TEST_Request(const std::string& op, int timeout_ms) {
  return Call(op, Json::object(), {}, timeout_ms).status();
}

Status RemoteBoard::TEST_Request(const std::string& op, const nlohmann::json& fields,
                                 std::vector<uint8_t> payload, int timeout_ms) {
  return Call(op, fields, std::move(payload), timeout_ms).status();
}

}  // namespace ctte::lab
