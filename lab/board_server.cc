// Board server: one request frame in, one response frame out (see board_server.h).
#include "lab/board_server.h"

#include <nlohmann/json.hpp>
#include <unistd.h>

#include <csignal>
#include <cstdlib>

#include "base/json.h"
#include "base/text.h"
#include "lab/protocol.h"
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

// Handles one well-framed request. Sets *stop on shutdown.
Frame Handle(Board& board, const ServerOptions& options, Frame& req, bool* stop) {
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
    Result<DeployReceipt> r = board.Deploy(d);
    if (!r.ok()) return Response(id, r.status());
    return Response(id, s, Json{{"receipt", wire::ToJson(*r)}});
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
    Result<Capture> r = board.Run(plan);
    if (!r.ok()) return Response(id, r.status());
    std::vector<uint8_t> bytes = std::move(r->bytes);
    return Response(id, s, Json{{"capture", wire::ToJson(*r)}}, std::move(bytes));
  }
  if (op == "shutdown") {
    *stop = true;
    return Response(id, s);
  }
  if (options.test_ops) {
    if (op == "TEST_abort") std::abort();
    if (op == "TEST_exit") ::_exit(3);
    if (op == "TEST_hang") {
      for (;;) ::pause();
    }
  }
  return Response(id, Status::InvalidArgument("unknown op '" + op + "'"));
}
}  // namespace

Status ServeBoard(Board& board, int in_fd, int out_fd, const ServerOptions& options,
                  bool* shutdown) {
  if (shutdown != nullptr) *shutdown = false;
  FrameReader reader(in_fd);
  for (;;) {
    Result<Frame> req = reader.Read(-1);
    if (!req.ok()) {
      if (req.status().code() == Status::Code::kUnavailable) return Status::Ok();  // EOF
      (void)WriteFrame(out_fd, Response(0, req.status()));
      return req.status();
    }
    bool stop = false;
    Frame resp;
    try {
      resp = Handle(board, options, *req, &stop);
    } catch (const std::exception& e) {  // json type errors surface here; keep serving
      resp = Response(0, Status::Internal(std::string("server: ") + e.what()));
    }
    CTTE_RETURN_IF_ERROR(WriteFrame(out_fd, resp));
    if (stop) {
      if (shutdown != nullptr) *shutdown = true;
      return Status::Ok();
    }
  }
}

}  // namespace ctte::lab
