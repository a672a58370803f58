// The lab inventory, lab.json (docs/lab.md): the boards a runner may use, by name.
//
//   {"boards": [
//     {"name": "sim-0", "kind": "local"},                      ; a ctte-board --stdio child
//     {"name": "board-a", "kind": "net", "address": "127.0.0.1:7001",
//      "cert": "certs/runner.crt", "key": "certs/runner.key", "ca": "ca/ca.crt",
//      "usb": {"serial": "FT4232-0042", "hub_port": "1-2.3"}}  ; optional, for later
//   ]}
//
// Relative paths are relative to the inventory file's directory. Names are unique. A net
// board's agent must present a certificate naming it (lab/net/net_board.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "lab/board.h"
#include "lab/net/pki.h"
#include "lab/remote_board.h"

namespace ctte::lab::net {

struct UsbIdentity {
  std::string serial;
  std::string hub_port;
};

struct InventoryBoard {
  std::string name;
  std::string kind;  ///< "local" or "net"
  std::string host;  ///< net: the agent's address
  uint16_t port = 0;
  TlsFiles tls;      ///< net: the runner's certificate and key, and the lab CA
  UsbIdentity usb;   ///< optional; not used yet
};

struct Inventory {
  std::vector<InventoryBoard> boards;
};

Result<Inventory> LoadInventory(const std::string& path);

/// Opens one inventory board: local = RemoteBoard::Spawn(options); net = NetBoard::Connect
/// with options' timeouts. An agent that answers "busy: leased by ..." is asked again every
/// second for up to lease_wait_ms (then Unavailable naming the holder).
inline constexpr int kDefaultLeaseWaitMs = 60'000;
Result<std::unique_ptr<Board>> OpenInventoryBoard(const InventoryBoard& entry,
                                                  const RemoteBoardOptions& options,
                                                  int lease_wait_ms = kDefaultLeaseWaitMs);

}  // namespace ctte::lab::net
