// LibusbBackend: UsbBackend on the real libusb-1.0 (the only user of libusb.h, in its .cc).
// List() walks libusb_get_device_list; serial, manufacturer and product strings need the device
// opened (permissions: a device that cannot be opened is listed without them, with a note).
// SetPortPower() opens the hub at the path and sends the hub-class port feature request:
//   bmRequestType 0x23 (host-to-device, class, other), bRequest SET_FEATURE (3) or
//   CLEAR_FEATURE (1), wValue PORT_POWER (8), wIndex port, no data, 5 s timeout.
// Hub() reads the hub descriptor (GET_DESCRIPTOR 0x29 / 0x2A: ports, power switching mode)
// and finds a USB 3 hub's companion by the BOS container ID; PortConnected() is GET_STATUS.
// None of this has met a real hub here (this machine has no USB devices).
#pragma once

#include <memory>

#include "lab/usb/usb.h"

namespace ctte::lab::usb {

class LibusbBackend : public UsbBackend {
 public:
  /// libusb_init; Unavailable naming libusb's error when there is no USB subsystem to use.
  static Result<std::unique_ptr<LibusbBackend>> Create();
  ~LibusbBackend() override;
  Result<std::vector<UsbDevice>> List() override;
  Result<HubInfo> Hub(const std::string& hub_path) override;
  Result<bool> PortConnected(const std::string& hub_path, int port) override;
  Status SetPortPower(const std::string& hub_path, int port, bool on) override;

 private:
  LibusbBackend() = default;
  struct Ctx;
  Ctx* ctx_ = nullptr;
};

}  // namespace ctte::lab::usb
