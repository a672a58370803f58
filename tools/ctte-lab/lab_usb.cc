// `ctte-lab lab usb` and `ctte-lab lab power-cycle` (see lab_usb.h).
#include "tools/ctte-lab/lab_usb.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>

#include "lab/net/inventory.h"
#include "lab/usb/fixture_backend.h"
#include "lab/usb/libusb_backend.h"
#include "tools/ctte-lab/command.h"

namespace ctte::cli {

namespace {

std::string Hex4(uint16_t v) {
  char b[8];
  std::snprintf(b, sizeof b, "%04x", v);
  return b;
}

}  // namespace

std::unique_ptr<lab::usb::UsbBackend> OpenLibusb(const char* command) {
  if (const char* fixture = std::getenv("CTTE_USB_FIXTURE"); fixture != nullptr && *fixture) {
    // Tests: a described bus instead of the host's (lab/usb/fixture_backend.h).
    Result<std::unique_ptr<lab::usb::FixtureBackend>> f = lab::usb::FixtureBackend::Load(fixture);
    if (!f.ok()) {
      std::fprintf(stderr, "ctte-lab lab %s: CTTE_USB_FIXTURE: %s\n", command,
                   f.status().ToString().c_str());
      return nullptr;
    }
    return std::move(*f);
  }
  Result<std::unique_ptr<lab::usb::LibusbBackend>> b = lab::usb::LibusbBackend::Create();
  if (!b.ok()) {
    std::printf("ctte-lab lab %s: no USB devices: %s\n", command, b.status().message().c_str());
    return nullptr;
  }
  return std::move(*b);
}

int RunLabUsb(const LabUsbFlags& f, lab::usb::UsbBackend* backend) {
  std::map<std::string, std::string> boards;  // serial -> inventory board
  if (!f.lab_file.empty()) {
    Result<lab::net::Inventory> inv = lab::net::LoadInventory(f.lab_file);
    if (!inv.ok()) {
      std::fprintf(stderr, "ctte-lab lab usb: %s\n", inv.status().ToString().c_str());
      return kExitUsage;
    }
    for (const auto& b : inv->boards) {
      if (!b.usb.serial.empty()) boards[b.usb.serial] = b.name;
    }
  }
  std::vector<lab::usb::UsbDevice> devs;
  if (backend != nullptr) {
    Result<std::vector<lab::usb::UsbDevice>> d = backend->List();
    if (!d.ok()) {
      std::fprintf(stderr, "ctte-lab lab usb: %s\n", d.status().ToString().c_str());
      return kExitUsage;
    }
    devs = std::move(*d);
  }
  if (f.json) {
    nlohmann::ordered_json out = {{"devices", nlohmann::ordered_json::array()}};
    for (const auto& d : devs) {
      auto it = boards.find(d.serial);
      out["devices"].push_back({{"vendor", Hex4(d.vendor)}, {"product", Hex4(d.product)},
                                {"serial", d.serial}, {"port_path", d.port_path},
                                {"hub", d.is_hub},
                                {"board", d.serial.empty() || it == boards.end() ? "" : it->second},
                                {"note", d.note}});
    }
    nlohmann::ordered_json missing = nlohmann::ordered_json::array();
    for (const auto& [serial, name] : boards) {
      bool seen = false;
      for (const auto& d : devs) seen = seen || d.serial == serial;
      if (!seen) missing.push_back({{"board", name}, {"serial", serial}});
    }
    out["boards_not_seen"] = missing;
    std::printf("%s\n", out.dump(2).c_str());
    return kExitOk;
  }
  if (devs.empty()) std::printf("no USB devices on this machine\n");
  for (const auto& d : devs) {
    auto it = boards.find(d.serial);
    std::printf("%-10s %s:%s %-20s %s%s%s\n", d.port_path.c_str(), Hex4(d.vendor).c_str(),
                Hex4(d.product).c_str(), d.serial.empty() ? "-" : d.serial.c_str(),
                d.is_hub ? "hub " : "",
                d.serial.empty() || it == boards.end() ? "" : ("board " + it->second).c_str(),
                d.note.empty() ? "" : ("  (" + d.note + ")").c_str());
  }
  for (const auto& [serial, name] : boards) {
    bool seen = false;
    for (const auto& d : devs) seen = seen || d.serial == serial;
    if (!seen) std::printf("board %s (serial %s): not seen\n", name.c_str(), serial.c_str());
  }
  return kExitOk;
}

int RunPowerCycle(const LabUsbFlags& f, lab::usb::UsbBackend* backend) {
  Result<lab::net::Inventory> inv = lab::net::LoadInventory(f.lab_file);
  if (!inv.ok()) {
    std::fprintf(stderr, "ctte-lab lab power-cycle: %s\n", inv.status().ToString().c_str());
    return kExitUsage;
  }
  const lab::net::InventoryBoard* entry = nullptr;
  for (const auto& b : inv->boards) {
    if (b.name == f.board) entry = &b;
  }
  if (entry == nullptr || entry->usb.hub_port.empty()) {
    std::fprintf(stderr, "ctte-lab lab power-cycle: %s: %s\n", f.lab_file.c_str(),
                 entry == nullptr ? ("no board " + f.board).c_str()
                                  : ("board " + f.board + " names no usb.hub_port").c_str());
    return kExitUsage;
  }
  if (Result<lab::usb::HubPort> hp = lab::usb::ParseHubPort(entry->usb.hub_port); !hp.ok()) {
    std::fprintf(stderr, "ctte-lab lab power-cycle: %s\n", hp.status().ToString().c_str());
    return kExitUsage;
  }
  std::vector<lab::usb::UsbDevice> devs;
  if (backend != nullptr) {
    Result<std::vector<lab::usb::UsbDevice>> d = backend->List();
    if (d.ok()) devs = std::move(*d);
  }
  if (devs.empty()) {
    std::printf("no USB devices on this machine: board %s (hub port %s) not power-cycled\n",
                f.board.c_str(), entry->usb.hub_port.c_str());
    return kExitOk;
  }
  lab::usb::PowerCycleOptions o;
  o.off_ms = f.off_ms;
  o.come_back_ms = f.come_back_ms;
  Result<lab::usb::PowerCycleResult> r =
      lab::usb::PowerCycle(*backend, entry->usb.hub_port, entry->usb.serial, o);
  if (!r.ok()) {
    std::fprintf(stderr, "ctte-lab lab power-cycle: %s: %s\n", f.board.c_str(),
                 r.status().ToString().c_str());
    return kExitUsage;
  }
  std::string hubs;
  for (const std::string& h : r->hubs) hubs += (hubs.empty() ? "" : " and ") + h;
  std::printf("board %s: hub port %s off %d ms (on hub %s) and on; serial %s gone after %d ms, "
              "back after %d ms\n",
              f.board.c_str(), entry->usb.hub_port.c_str(), f.off_ms, hubs.c_str(),
              entry->usb.serial.c_str(), r->gone_after_ms, r->waited_ms);
  return kExitOk;
}

std::function<bool(const runner::QuarantineRequest&)> PowerCycleBeforeQuarantine(
    std::vector<lab::net::InventoryBoard> boards) {
  return [boards = std::move(boards)](const runner::QuarantineRequest& q) {
    for (const lab::net::InventoryBoard& b : boards) {
      if (b.name != q.board) continue;
      if (b.usb.hub_port.empty()) return false;
      Result<std::unique_ptr<lab::usb::LibusbBackend>> usb = lab::usb::LibusbBackend::Create();
      std::string note;
      const bool back = lab::usb::PowerCycleBoard(usb.ok() ? usb->get() : nullptr,
                                                  {b.usb.serial, b.usb.hub_port}, {}, &note);
      std::fprintf(stderr, "ctte-lab soak: %s before quarantine: %s\n", q.board.c_str(),
                   note.c_str());
      return back;
    }
    return false;
  };
}

}  // namespace ctte::cli
