// FixtureBackend: a UsbBackend on a described bus (JSON), behaving as real hubs do and never
// more kindly, for the tests and for `ctte-lab lab usb|power-cycle` under test
// (CTTE_USB_FIXTURE=FILE, docs/lab.md "USB"):
//  - per-port switching: a port's PORT_POWER cuts or restores its VBUS;
//  - ganged: the ports share one switch; power goes off only when every port of the hub is
//    off, and any SET turns all on (USB 2.0 11.11);
//  - none, or a hub that "ignores_power" (reports per-port switching but has no switch wired,
//    as many do): requests are accepted and nothing happens;
//  - a USB 3 hub and its companion (the USB 2 half) feed the same connector: a device there
//    loses power only when its port is off on both halves;
//  - a device powered again enumerates after `enumerate_lists` List() calls (it is connected
//    at once); an unknown hub is NotFound, a port the hub lacks a STALL (IOError).
// Bus file:
//   {"hubs": [{"path": "1-2", "ports": 4, "switching": "per-port"|"ganged"|"none",
//              "superspeed": false, "companion": "", "ignores_power": false}],
//    "devices": [{"serial": "BOARD-7", "hub": "1-2", "port": 3, "vendor": 1027,
//                 "product": 24593, "enumerate_lists": 2}]}
#pragma once

#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "lab/usb/usb.h"

namespace ctte::lab::usb {

class FixtureBackend : public UsbBackend {
 public:
  struct FixtureHub {
    std::string path;
    int ports = 4;
    PowerSwitching switching = PowerSwitching::kPerPort;
    bool superspeed = false;
    std::string companion;
    bool ignores_power = false;
  };
  struct FixtureDevice {
    std::string serial;
    std::string hub;
    int port = 1;
    uint16_t vendor = 0x0403, product = 0x6011;
    int enumerate_lists = 0;
  };
  /// InvalidArgument naming the JSON path for a bad bus file.
  static Result<std::unique_ptr<FixtureBackend>> Load(const std::string& path);
  FixtureBackend(std::vector<FixtureHub> hubs, std::vector<FixtureDevice> devices);

  Result<std::vector<UsbDevice>> List() override;
  Result<HubInfo> Hub(const std::string& hub_path) override;
  Result<bool> PortConnected(const std::string& hub_path, int port) override;
  Status SetPortPower(const std::string& hub_path, int port, bool on) override;

  /// Every PORT_POWER request, in order: (hub, port, on).
  const std::vector<std::tuple<std::string, int, bool>>& requests() const { return requests_; }

 private:
  const FixtureHub* FindHub(const std::string& path) const;
  bool Powered(const FixtureDevice& d) const;  ///< VBUS at the device's connector
  bool SwitchOn(const FixtureHub& h, int port) const;

  std::vector<FixtureHub> hubs_;
  std::vector<FixtureDevice> devices_;
  std::map<std::pair<std::string, int>, bool> port_on_;  ///< absent = on
  std::map<std::string, int> countdown_;                 ///< serial -> lists until enumerated
  std::map<std::string, bool> was_powered_;
  std::vector<std::tuple<std::string, int, bool>> requests_;
};

}  // namespace ctte::lab::usb
