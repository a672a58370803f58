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

/// wHubCharacteristics bits 1:0, Logical Power Switching Mode (USB 2.0 11.23.2.1, USB 3.2
/// 10.15.2.1): 00 ganged (all ports at once), 01 individual port power switching, 1X none.
enum class PowerSwitching { kGanged, kPerPort, kNone };
const char* PowerSwitchingName(PowerSwitching p);  ///< "ganged", "per-port", "none"

struct HubInfo {
  int ports = 0;               ///< bNbrPorts
  PowerSwitching switching = PowerSwitching::kNone;
  bool superspeed = false;     ///< a USB 3 hub (SuperSpeed hub descriptor, type 0x2A)
  /// The other half of a USB 3 hub (the USB 2 hub behind the same ports, or the reverse),
  /// matched by the BOS container ID; "" when there is none.
  std::string companion;
};

class UsbBackend {
 public:
  virtual ~UsbBackend() = default;
  virtual Result<std::vector<UsbDevice>> List() = 0;
  /// The hub descriptor of the hub at `hub_path` (GET_DESCRIPTOR, hub class) and its companion.
  virtual Result<HubInfo> Hub(const std::string& hub_path) = 0;
  /// GET_STATUS of `port` (bmRequestType 0xA3): wPortStatus bit 0, PORT_CONNECTION.
  virtual Result<bool> PortConnected(const std::string& hub_path, int port) = 0;
  /// Hub-class request to the hub at `hub_path`: SET_FEATURE (on) or CLEAR_FEATURE (off)
  /// PORT_POWER for `port` (USB 2.0 spec 11.24.2; as uhubctl sends it).
  virtual Status SetPortPower(const std::string& hub_path, int port, bool on) = 0;
};

struct HubPort {
  std::string hub_path;  ///< "1-2"
  int port = 0;          ///< 3
};
/// Parses "1-2.3"; InvalidArgument naming the text when it is not BUS-PORT[.PORT...], a bus
/// outside 1..255, a port outside 1..255 or more than 7 tiers (USB 2.0 4.1.1).
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
  bool was_present = false;  ///< the serial was seen (or the port connected) before the cycle
  int gone_after_ms = 0;  ///< after power off, until the serial and the connection were gone
  std::vector<std::string> hubs;  ///< the hubs switched: the hub, then its USB 3 companion
};

/// Reads the hub's descriptor and refuses a hub that does not switch ports one by one
/// (ganged or no power switching: InvalidArgument), or a port it does not have; switches `hub_port` off on the
/// hub and on its USB 3 companion (both halves share the port's VBUS), polls until the
/// device is gone (no `serial` in List(), the port not connected), at least off_ms and at most
/// off_ms + come_back_ms; switches both on and polls List() until `serial` (with no serial:
/// the port's connection) is back, at most come_back_ms. IOError when the device
/// never went away (the hub ignored the request: nothing was cycled), Timeout when it does
/// not come back; the ports are switched back on in every case once switched off.
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
