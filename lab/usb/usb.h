// USB control of the lab (docs/lab.md, "USB"): the devices on the host's buses and the power
// of hub ports. The hardware-facing part is UsbBackend; LibusbBackend (libusb_backend.h, the
// only file that includes libusb.h) is the real one, tests use a fake hub.
//
// Port paths are Linux's sysfs spelling, as uhubctl and lab.json use them: "1-2.3" is bus 1,
// root port 2, then port 3 of the hub there. A board's "hub_port" names the port its USB link
// is plugged into: the hub is the path without the last element ("1-2"), the port the last
// element (3).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"

namespace ctte::lab::usb {

struct UsbDevice {
  uint16_t vendor = 0, product = 0;
  std::string serial;        ///< "" when the device has none or it could not be read
  std::string manufacturer, product_name;
  std::string port_path;     ///< "1-2.3"; root hubs: "usb1"
  bool is_hub = false;
  std::string note;          ///< why a string could not be read (permissions)
};

class UsbBackend {
 public:
  virtual ~UsbBackend() = default;
  virtual Result<std::vector<UsbDevice>> List() = 0;
  /// Hub-class request to the hub at `hub_path`: SET_FEATURE (on) or CLEAR_FEATURE (off)
  /// PORT_POWER for `port` (USB 2.0 spec 11.24.2; as uhubctl sends it).
  virtual Status SetPortPower(const std::string& hub_path, int port, bool on) = 0;
};

struct HubPort {
  std::string hub_path;  ///< "1-2"
  int port = 0;          ///< 3
};
/// Parses "1-2.3"; InvalidArgument naming the text when it is not BUS-PORT[.PORT...].
Result<HubPort> ParseHubPort(const std::string& text);

struct PowerCycleOptions {
  int off_ms = 2000;          ///< how long the port stays off
  int come_back_ms = 20000;   ///< bound on waiting for the serial to reappear
  int poll_ms = 250;
  /// Sleeps (tests pass a fake clock); default: std::this_thread::sleep_for.
  std::function<void(int ms)> sleep;
};

struct PowerCycleResult {
  bool came_back = false;
  int waited_ms = 0;      ///< after power on, until the serial was seen (or the bound)
  bool was_present = false;  ///< the serial was seen before the cycle
};

/// Switches `hub_port` off, waits off_ms, switches it on, and polls List() until a device with
/// `serial` is back (at most come_back_ms). Timeout when it does not come back; errors of
/// the backend as they are (naming hub and port).
Result<PowerCycleResult> PowerCycle(UsbBackend& backend, const std::string& hub_port,
                                    const std::string& serial, const PowerCycleOptions& options);

/// A board's USB link as the inventory names it (lab.json "usb").
struct BoardUsbLink {
  std::string serial;
  std::string hub_port;  ///< "" = no switchable port known
};

/// The soak's power-cycle before quarantine (runner/board_health.h, before_quarantine): one
/// PowerCycle of the board's hub port. True when the serial came back; false, with `*note`
/// saying why, when there is nothing to do (no hub port, no backend, no USB devices) or the
/// cycle failed.
bool PowerCycleBoard(UsbBackend* backend, const BoardUsbLink& link,
                     const PowerCycleOptions& options, std::string* note);

}  // namespace ctte::lab::usb
