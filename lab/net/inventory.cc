#include "lab/net/inventory.h"

#include <chrono>
#include <thread>

#include <nlohmann/json.hpp>

#include <set>

#include "base/json.h"
#include "lab/net/net_board.h"
#include "lab/protocol.h"

namespace ctte::lab::net {
namespace {

std::string Resolve(const std::string& base_dir, const std::string& p) {
  if (p.empty() || p.front() == '/') return p;
  return base_dir + "/" + p;
}

Status ParseAddress(const std::string& path, const std::string& addr, std::string* host,
                    uint16_t* port) {
  const size_t colon = addr.rfind(':');
  const std::string p = colon == std::string::npos ? "" : addr.substr(colon + 1);
  if (colon == 0 || p.empty() || p.size() > 5 || p.find_first_not_of("0123456789") != std::string::npos ||
      std::stoul(p) == 0 || std::stoul(p) > 65535) {
    return Status::InvalidArgument(path + ": expected HOST:PORT, got '" + PrintableText(addr) + "'");
  }
  *host = addr.substr(0, colon);
  if (host->size() > 2 && host->front() == '[' && host->back() == ']') {
    *host = host->substr(1, host->size() - 2);
  }
  *port = static_cast<uint16_t>(std::stoul(p));
  return Status::Ok();
}

}  // namespace

Result<Inventory> LoadInventory(const std::string& path) {
  CTTE_ASSIGN_OR_RETURN(const nlohmann::ordered_json j, ParseJsonFile(path));
  const size_t slash = path.rfind('/');
  const std::string base = slash == std::string::npos ? "." : path.substr(0, slash);
  if (!j.is_object() || !j.contains("boards") || !j["boards"].is_array()) {
    return Status::InvalidArgument(path + ": $.boards: expected an array of boards");
  }
  Inventory inv;
  std::set<std::string> names;
  const auto& arr = j["boards"];
  if (arr.empty()) return Status::InvalidArgument(path + ": $.boards: no boards");
  for (size_t i = 0; i < arr.size(); ++i) {
    const std::string at = JsonPathIndex("$.boards", i);
    const auto& b = arr[i];
    if (!b.is_object()) return Status::InvalidArgument(path + ": " + at + ": expected an object");
    InventoryBoard e;
    CTTE_ASSIGN_OR_RETURN(e.name, GetString(b, at, "name", 63));
    if (e.name.empty()) return Status::InvalidArgument(path + ": " + at + ".name: empty");
    if (!names.insert(e.name).second) {
      return Status::InvalidArgument(path + ": " + at + ".name: '" + e.name + "' appears twice");
    }
    CTTE_ASSIGN_OR_RETURN(e.kind, GetString(b, at, "kind", 16));
    if (e.kind == "net") {
      CTTE_ASSIGN_OR_RETURN(const std::string addr, GetString(b, at, "address", 300));
      CTTE_RETURN_IF_ERROR(ParseAddress(path + ": " + at + ".address", addr, &e.host, &e.port));
      CTTE_ASSIGN_OR_RETURN(e.tls.cert, GetString(b, at, "cert"));
      CTTE_ASSIGN_OR_RETURN(e.tls.key, GetString(b, at, "key"));
      CTTE_ASSIGN_OR_RETURN(e.tls.ca, GetString(b, at, "ca"));
      e.tls.cert = Resolve(base, e.tls.cert);
      e.tls.key = Resolve(base, e.tls.key);
      e.tls.ca = Resolve(base, e.tls.ca);
    } else if (e.kind != "local") {
      return Status::InvalidArgument(path + ": " + at + ".kind: expected \"local\" or \"net\", got '" +
                                     PrintableText(e.kind) + "'");
    }
    if (b.contains("usb")) {
      const auto& u = b["usb"];
      const std::string up = JsonPathKey(at, "usb");
      if (!u.is_object()) return Status::InvalidArgument(path + ": " + up + ": expected an object");
      if (u.contains("serial")) {
        CTTE_ASSIGN_OR_RETURN(e.usb.serial, GetString(u, up, "serial", 128));
      }
      if (u.contains("hub_port")) {
        CTTE_ASSIGN_OR_RETURN(e.usb.hub_port, GetString(u, up, "hub_port", 64));
      }
    }
    inv.boards.push_back(std::move(e));
  }
  return inv;
}

Result<std::unique_ptr<Board>> OpenInventoryBoard(const InventoryBoard& entry,
                                                  const RemoteBoardOptions& options,
                                                  int lease_wait_ms) {
  if (entry.kind == "local") {
    CTTE_ASSIGN_OR_RETURN(std::unique_ptr<RemoteBoard> b, RemoteBoard::Spawn(options));
    return std::unique_ptr<Board>(std::move(b));
  }
  NetBoardOptions o;
  o.host = entry.host;
  o.port = entry.port;
  o.expected_name = entry.name;
  o.tls = entry.tls;
  o.remote = options;
  // A busy agent (leased by another runner) is asked again every second for a bounded time.
  const int64_t give_up = MonotonicMs() + lease_wait_ms;
  for (;;) {
    CTTE_ASSIGN_OR_RETURN(std::unique_ptr<NetBoard> b, NetBoard::Connect(o));
    Result<BoardIdentity> id = b->Identify();
    const bool busy = !id.ok() && id.status().code() == Status::Code::kUnavailable &&
                      id.status().message().find("busy: leased by") != std::string::npos;
    if (!busy) return std::unique_ptr<Board>(std::move(b));
    if (MonotonicMs() >= give_up) {
      return Status::Unavailable("board " + entry.name + " at " + entry.host + ":" +
                                 std::to_string(entry.port) + " still " + id.status().message() +
                                 " after waiting " + std::to_string(lease_wait_ms / 1000) + " s");
    }
    b.reset();
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

}  // namespace ctte::lab::net
