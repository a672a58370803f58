// Board server: one request frame in, one response frame out (see board_server.h).
#include "lab/board_server.h"

#include <nlohmann/json.hpp>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "base/allocator.h"
#include "base/json.h"
#include "base/sha256.h"
#include "base/text.h"
#include "lab/protocol.h"
#include "lab/request_throttle.h"
#include "lab/wire.h"

namespace ctte::lab {

namespace {
using wire::Json;

Frame Response(uint64_t id, const Status& s, Json body = Json::object(),
               std::vector<uint8_t> payload = {}) {
  Json h = std::move(body);
  h["v"] = kProtocolVersion;
  h["id"] = id;
  h["ok"] = s.ok();
  if (!s.ok()) h["error"] = wire::StatusToJson(s);
  return Frame{h.dump(), std::move(payload)};
}

void Log(const ServerOptions& o, const std::string& line) {
  if (o.state != nullptr && o.state->log) o.state->log(line);
}

// "; evicted N least recently used (...)" for a log line, or "".
std::string Evictions(const PayloadCache& cache, const std::vector<std::string>& evicted) {
  if (evicted.empty()) return "";
  std::string names;
  for (const std::string& e : evicted) names += (names.empty() ? "" : ", ") + e.substr(0, 12);
  return "; evicted " + std::to_string(evicted.size()) + " least recently used (" + names +
         ") to stay within the cache budget of " + std::to_string(cache.max_bytes()) + " bytes";
}

// The cache, or the error for a payload op on a server without one.
Result<PayloadCache*> CacheOf(const ServerOptions& o, const std::string& op) {
  if (o.state == nullptr || o.state->cache == nullptr) {
    return Status::InvalidArgument("op " + op + ": this board server has no payload cache");
  }
  return o.state->cache;
}

// The image allowlist (ServerOptions::image_allowlist): checked on the bytes before the board
// sees them.
Status CheckAllowed(const ServerOptions& o, const DeployRequest& d) {
  if (!o.image_allowlist) return Status::Ok();
  if (d.bytes.empty()) {
    return Status::InvalidArgument("image " + QuoteForMessage(d.name) +
                                   ": this agent loads only images sent as payloads");
  }
  const std::string sha = Sha256Hex(d.bytes);
  if (o.image_allowlist->count(sha) == 0) {
    return Status::InvalidArgument("image " + QuoteForMessage(d.name) + " (sha256 " + sha +
                                   ") is not in this agent's image allowlist (--image-dir); "
                                   "refused before loading");
  }
  return Status::Ok();
}

// deploy: the image is the payload, or (payload_sha256 without a payload) a cached one. With a
// cache, a received image is stored; a deploy of the image the board already holds (the
// identity reads back its SHA-256 and the build id matches) is skipped.
Frame Deploy(Board& board, const ServerOptions& options, uint64_t id, DeployRequest d,
             const std::string& payload_sha) {
  if (options.payload_only) {
    if (!d.path.empty()) {
      return Response(id, Status::InvalidArgument(
                              "deploy.path: this agent takes no path; send the image as a "
                              "payload named by payload_sha256"));
    }
    if (payload_sha.empty()) {
      return Response(id, Status::InvalidArgument("deploy.payload_sha256: missing; this agent "
                                                  "takes images only as payloads"));
    }
  }
  if (!payload_sha.empty()) {
    if (options.image_allowlist && options.image_allowlist->count(payload_sha) == 0) {
      // Refused before the bytes are cached or the board sees them.
      return Response(id, Status::InvalidArgument(
                              "image " + QuoteForMessage(d.name) + " (sha256 " +
                              QuoteForMessage(payload_sha) + ") is not in this agent's image "
                              "allowlist (--image-dir); refused before loading"));
    }
    Result<PayloadCache*> cache = CacheOf(options, "deploy");
    if (!cache.ok()) return Response(id, cache.status());
    if (d.bytes.empty()) {
      bool corrupted = false;
      Result<std::vector<uint8_t>> b = (*cache)->Read(payload_sha, &corrupted);
      if (!b.ok()) {
        if (corrupted) Log(options, b.status().message());
        return Response(id, b.status());
      }
      d.bytes = std::move(*b);
    } else {
      std::vector<std::string> evicted;
      Result<std::string> put = (*cache)->Put(payload_sha, d.bytes, &evicted);
      if (!put.ok()) return Response(id, put.status());
      Log(options, "cached image " + QuoteForMessage(d.name) + " (" +
                       std::to_string(d.bytes.size()) + " bytes) as " + payload_sha +
                       Evictions(**cache, evicted));
    }
    const Status allowed = CheckAllowed(options, d);
    if (!allowed.ok()) return Response(id, allowed);
    ServerState& st = *options.state;
    if (st.held && st.held->sha256 == payload_sha &&
        (d.expected_sha256.empty() || d.expected_sha256 == payload_sha) &&
        (d.expected_build_id == 0 || d.expected_build_id == st.held->build_id)) {
      Result<BoardIdentity> ident = board.Identify();
      if (ident.ok() && ident->image_sha256 == payload_sha) {
        Log(options, "deploy of " + QuoteForMessage(d.name) + " skipped: the board holds sha256 " + payload_sha);
        return Response(id, Status::Ok(), Json{{"receipt", wire::ToJson(*st.held)}, {"skipped", true}});
      }
    }
    st.held.reset();
  } else {
    const Status allowed = CheckAllowed(options, d);
    if (!allowed.ok()) return Response(id, allowed);
  }
  Result<DeployReceipt> r = board.Deploy(d);
  if (!r.ok()) return Response(id, r.status());
  if (options.state != nullptr) options.state->held = *r;
  return Response(id, Status::Ok(), Json{{"receipt", wire::ToJson(*r)}});
}

// Handles one well-framed request. Sets *stop on shutdown, *silent for a request that gets no
// response (heartbeat).
Frame Handle(Board& board, const ServerOptions& options, Frame& req, bool* stop, bool* silent) {
  Result<nlohmann::ordered_json> parsed = ParseJsonText(req.header, "request header");
  if (!parsed.ok()) {
    return Response(0, Status::InvalidArgument("request header is not a JSON object: " +
                                               parsed.status().message()));
  }
  if (!parsed->is_object()) {
    return Response(0, Status::InvalidArgument("request header is not a JSON object"));
  }
  Json h = *parsed;
  uint64_t id = 0;
  Status s = wire::GetU64(h, "", "id", &id);
  if (!s.ok()) return Response(0, s);
  uint64_t v = 0;
  s = wire::GetU64(h, "", "v", &v);
  if (!s.ok()) return Response(id, s);
  if (v != kProtocolVersion) {
    return Response(id, Status::InvalidArgument("protocol version " + std::to_string(v) +
                                                " not supported (this board speaks " +
                                                std::to_string(kProtocolVersion) + ")"));
  }
  std::string op;
  s = wire::GetStr(h, "", "op", &op);
  if (!s.ok()) return Response(id, s);

  if (options.on_request && op != "heartbeat") {
    options.on_request(QuoteForMessage(op) + " (id " + std::to_string(id) + ")");
  }
  if (op == "heartbeat") {
    *silent = true;
    return Frame{};
  }
  if (op == "have" || op == "put") {
    Result<PayloadCache*> cache = CacheOf(options, op);
    if (!cache.ok()) return Response(id, cache.status());
    std::string sha;
    s = wire::GetStr(h, "", "sha256", &sha);
    if (!s.ok()) return Response(id, s);
    if (op == "put") {
      std::vector<std::string> evicted;
      Result<std::string> put = (*cache)->Put(sha, req.payload, &evicted);
      if (!put.ok()) return Response(id, put.status());
      Log(options, "cached payload of " + std::to_string(req.payload.size()) + " bytes as " + sha +
                       Evictions(**cache, evicted));
      return Response(id, s, Json{{"sha256", sha}});
    }
    bool corrupted = false;
    Result<std::string> path = (*cache)->Lookup(sha, &corrupted);
    if (!path.ok() && path.status().code() != Status::Code::kNotFound) {
      return Response(id, path.status());
    }
    if (!path.ok()) Log(options, path.status().message());
    return Response(id, s, Json{{"have", path.ok()}});
  }
  if (op == "identify") {
    Result<BoardIdentity> r = board.Identify();
    if (!r.ok()) return Response(id, r.status());
    return Response(id, s, Json{{"identity", wire::ToJson(*r)}});
  }
  if (op == "deploy") {
    DeployRequest d;
    std::string bid;
    s = wire::GetStr(h, "", "name", &d.name);
    if (s.ok()) s = wire::GetStr(h, "", "path", &d.path, false);
    if (s.ok()) s = wire::GetStr(h, "", "expected_sha256", &d.expected_sha256, false);
    if (s.ok()) s = wire::GetStr(h, "", "expected_build_id", &bid, false);
    std::string payload_sha;
    if (s.ok()) s = wire::GetStr(h, "", "payload_sha256", &payload_sha, false);
    if (!s.ok()) return Response(id, s);
    if (!bid.empty()) {  // absent: no check
      Result<uint64_t> b = ParseHex64(bid, "expected_build_id");
      if (!b.ok()) return Response(id, b.status());
      d.expected_build_id = *b;
    }
    if (h.contains("registers")) {  // optional: the manifest's register map
      const Json& regs = h["registers"];
      if (!regs.is_object()) return Response(id, Status::InvalidArgument("registers: expected an object"));
      for (auto it = regs.begin(); it != regs.end(); ++it) {
        if (!it.value().is_number_unsigned() || it.value().get<uint64_t>() > 0xffffffffu) {
          return Response(id, Status::InvalidArgument("registers." + it.key() +
                                                      ": expected an unsigned 32-bit offset"));
        }
        d.registers[it.key()] = it.value().get<uint32_t>();
      }
    }
    d.bytes = std::move(req.payload);
    return Deploy(board, options, id, std::move(d), payload_sha);
  }
  if (op == "set_clock" || op == "read_clock") {
    std::string dn;
    s = wire::GetStr(h, "", "domain", &dn);
    if (!s.ok()) return Response(id, s);
    Result<ClockDomain> d = ParseClockDomain(dn);
    if (!d.ok()) return Response(id, d.status());
    Result<uint64_t> r = Status::Internal("unset");
    if (op == "set_clock") {
      uint64_t hz = 0;
      s = wire::GetU64(h, "", "hz", &hz);
      if (!s.ok()) return Response(id, s);
      r = board.SetClock(*d, hz);
    } else {
      r = board.ReadClock(*d);
    }
    if (!r.ok()) return Response(id, r.status());
    return Response(id, s, Json{{"hz", *r}});
  }
  if (op == "write_reg" || op == "read_reg") {
    uint32_t offset = 0;
    s = wire::GetU32(h, "", "offset", &offset);
    if (!s.ok()) return Response(id, s);
    if (op == "write_reg") {
      uint32_t value = 0;
      s = wire::GetU32(h, "", "value", &value);
      if (!s.ok()) return Response(id, s);
      return Response(id, board.WriteReg(offset, value));
    }
    Result<uint32_t> r = board.ReadReg(offset);
    if (!r.ok()) return Response(id, r.status());
    return Response(id, s, Json{{"value", *r}});
  }
  if (op == "run") {
    RunPlan plan;
    const Json* p = h.contains("plan") ? &h["plan"] : nullptr;
    if (p == nullptr) return Response(id, Status::InvalidArgument("plan: missing"));
    s = wire::FromJson(*p, "plan", &plan);
    if (!s.ok()) return Response(id, s);
    std::string workload_sha;
    s = wire::GetStr(h, "", "workload_sha256", &workload_sha, false);
    if (!s.ok()) return Response(id, s);
    if (options.payload_only) {
      if (!plan.workload_elf.empty()) {
        return Response(id, Status::InvalidArgument(
                                "plan.workload_elf: this agent takes no path; send the workload "
                                "as a payload named by workload_sha256"));
      }
      if (!plan.fst_path.empty()) {
        return Response(id, Status::InvalidArgument(
                                "plan.fst_path: this agent writes no file a client names; "
                                "waveforms are not served over the network"));
      }
      if (workload_sha.empty()) {
        return Response(id, Status::InvalidArgument("run.workload_sha256: missing; this agent "
                                                    "takes workloads only as payloads"));
      }
    }
    if (!workload_sha.empty()) {  // the workload is a cached payload, not a path on this disk
      Result<PayloadCache*> cache = CacheOf(options, "run");
      if (!cache.ok()) return Response(id, cache.status());
      bool corrupted = false;
      Result<std::string> path = (*cache)->Lookup(workload_sha, &corrupted);
      if (!path.ok()) {
        if (corrupted) Log(options, path.status().message());
        return Response(id, path.status());
      }
      plan.workload_elf = *path;
    }
    Result<Capture> r = board.Run(plan);
    if (!r.ok()) return Response(id, r.status());
    std::vector<uint8_t> bytes = std::move(r->bytes);
    return Response(id, s, Json{{"capture", wire::ToJson(*r)}}, std::move(bytes));
  }
  if (op == "shutdown") {
    *stop = true;
    return Response(id, s);
  }
  if (options.test_ops && !options.payload_only) {
    if (op == "TEST_abort") std::abort();
    if (op == "TEST_exit") ::_exit(3);
    if (op == "TEST_hang") {
      for (;;) ::pause();
    }
  }
  return Response(id, Status::InvalidArgument("unknown op " + QuoteForMessage(op)));
}
// The id of a request (0 when unreadable), for its heartbeats.
uint64_t RequestId(const std::string& header) {
  Result<nlohmann::ordered_json> j = ParseJsonText(header, "request header");
  if (!j.ok() || !j->is_object()) return 0;
  auto it = j->find("id");
  return it != j->end() && it->is_number_unsigned() ? it->get<uint64_t>() : 0;
}

// While alive (one request executing), writes {"heartbeat": true} frames every period_ms.
class Heartbeats {
 public:
  Heartbeats(int fd, int period_ms, uint64_t id, std::mutex* write_mu) {
    if (period_ms <= 0) return;
    thread_ = std::thread([this, fd, period_ms, id, write_mu] {
      const Json h{{"v", kProtocolVersion}, {"id", id}, {"heartbeat", true}};
      const Frame beat{h.dump(), {}};
      std::unique_lock<std::mutex> lk(mu_);
      while (!cv_.wait_for(lk, std::chrono::milliseconds(period_ms), [this] { return done_; })) {
        std::lock_guard<std::mutex> w(*write_mu);
        if (!WriteFrame(fd, beat, period_ms).ok()) return;
      }
    });
  }
  ~Heartbeats() {
    if (!thread_.joinable()) return;
    {
      std::lock_guard<std::mutex> lk(mu_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace

Status ServeBoard(Board& board, int in_fd, int out_fd, const ServerOptions& options,
                  bool* shutdown) {
  if (shutdown != nullptr) *shutdown = false;
  (void)RetainFreedMemory();  // a board serves run after run (base/allocator.h)
  FrameReader reader(in_fd);
  std::mutex write_mu;  // the response and the heartbeats share out_fd
  FrameReader::PayloadCheck check;
  if (options.payload_caps) {
    check = [caps = *options.payload_caps](const std::string& header, uint32_t bytes) -> Status {
      if (bytes == 0) return Status::Ok();
      const Json h = Json::parse(header, nullptr, /*allow_exceptions=*/false);
      const Json* op = h.is_object() && h.contains("op") && h["op"].is_string() ? &h["op"] : nullptr;
      const std::string name = op != nullptr ? op->get<std::string>() : "";
      const uint64_t cap = name == "deploy" ? caps.deploy : name == "put" ? caps.put : 0;
      if (bytes <= cap) return Status::Ok();
      return Status::InvalidArgument(
          "payload of " + std::to_string(bytes) + " bytes for " +
          (op != nullptr ? "op " + QuoteForMessage(name) : std::string("a header without an op")) +
          " exceeds this agent's cap of " + std::to_string(cap) + " bytes" +
          (name == "deploy" ? " (--max-image-bytes)" : name == "put" ? " (--max-put-bytes)" : ""));
    };
  }
  RequestThrottle throttle(options.max_requests_per_second, [&options](const std::string& line) {
    if (options.on_throttle) {
      options.on_throttle(line);
    } else {
      Log(options, line);
    }
  });
  for (;;) {
    Result<Frame> req = reader.Read(-1, check);
    if (!req.ok()) {
      if (req.status().code() == Status::Code::kUnavailable) return Status::Ok();  // EOF
      (void)WriteFrame(out_fd, Response(0, req.status()));
      return req.status();
    }
    throttle.Take();
    bool stop = false, silent = false;
    Frame resp;
    {
      Heartbeats beats(out_fd, options.heartbeat_ms, RequestId(req->header), &write_mu);
      try {
        resp = Handle(board, options, *req, &stop, &silent);
      } catch (const std::exception& e) {  // json type errors surface here; keep serving
        resp = Response(0, Status::Internal(std::string("server: ") + e.what()));
      }
    }
    if (silent) continue;
    std::lock_guard<std::mutex> lk(write_mu);
    CTTE_RETURN_IF_ERROR(WriteFrame(out_fd, resp));
    if (stop) {
      if (shutdown != nullptr) *shutdown = true;
      return Status::Ok();
    }
  }
}

}  // namespace ctte::lab
