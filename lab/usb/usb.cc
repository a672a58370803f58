// Hub-port parsing and the power-cycle sequence (see usb.h).
#include "lab/usb/usb.h"

#include <chrono>
#include <thread>

#include "base/text.h"

namespace ctte::lab::usb {

Result<HubPort> ParseHubPort(const std::string& text) {
  const auto bad = [&] {
    return Status::InvalidArgument("hub port '" + text +
                                   "': expected BUS-PORT[.PORT...], e.g. 1-2.3");
  };
  const size_t dash = text.find('-');
  if (dash == std::string::npos || dash == 0 || dash + 1 >= text.size()) return bad();
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (i == dash) continue;
    if (!(c >= '0' && c <= '9') && !(c == '.' && i > dash + 1 && text[i - 1] != '.')) return bad();
  }
  if (text.back() == '.') return bad();
  const size_t last = text.rfind('.');
  HubPort h;
  // "1-2.3": hub 1-2, port 3. "1-4": the root hub of bus 1 ("usb1"), port 4.
  if (last == std::string::npos) {
    h.hub_path = "usb" + text.substr(0, dash);
    h.port = std::stoi(text.substr(dash + 1));
  } else {
    h.hub_path = text.substr(0, last);
    h.port = std::stoi(text.substr(last + 1));
  }
  if (h.port < 1 || h.port > 255) return bad();
  return h;
}

Result<PowerCycleResult> PowerCycle(UsbBackend& backend, const std::string& hub_port,
                                    const std::string& serial, const PowerCycleOptions& o) {
  CTTE_ASSIGN_OR_RETURN(const HubPort hp, ParseHubPort(hub_port));
  const auto sleep = o.sleep ? o.sleep : [](int ms) {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  };
  const auto present = [&]() -> Result<bool> {
    CTTE_ASSIGN_OR_RETURN(const std::vector<UsbDevice> devs, backend.List());
    for (const UsbDevice& d : devs) {
      if (!serial.empty() && d.serial == serial) return true;
    }
    return false;
  };
  PowerCycleResult r;
  CTTE_ASSIGN_OR_RETURN(r.was_present, present());
  CTTE_RETURN_IF_ERROR(backend.SetPortPower(hp.hub_path, hp.port, false));
  sleep(o.off_ms);
  CTTE_RETURN_IF_ERROR(backend.SetPortPower(hp.hub_path, hp.port, true));
  for (r.waited_ms = 0;; r.waited_ms += o.poll_ms) {
    CTTE_ASSIGN_OR_RETURN(const bool back, present());
    if (back) {
      r.came_back = true;
      return r;
    }
    if (r.waited_ms >= o.come_back_ms) break;
    sleep(o.poll_ms);
  }
  return Status::Timeout("power-cycled hub " + hp.hub_path + " port " + std::to_string(hp.port) +
                         ": serial '" + serial + "' did not come back within " +
                         std::to_string(o.come_back_ms) + " ms");
}

bool PowerCycleBoard(UsbBackend* backend, const BoardUsbLink& link, const PowerCycleOptions& o,
                     std::string* note) {
  if (link.hub_port.empty()) {
    *note = "no usb.hub_port in the inventory: not power-cycled";
    return false;
  }
  if (backend == nullptr) {
    *note = "no USB subsystem: not power-cycled";
    return false;
  }
  Result<std::vector<UsbDevice>> devs = backend->List();
  if (!devs.ok() || devs->empty()) {
    *note = devs.ok() ? "no USB devices on this machine: not power-cycled" : devs.status().ToString();
    return false;
  }
  Result<PowerCycleResult> r = PowerCycle(*backend, link.hub_port, link.serial, o);
  if (!r.ok()) {
    *note = r.status().ToString();
    return false;
  }
  *note = "hub port " + link.hub_port + " power-cycled; serial " + link.serial + " back after " +
          std::to_string(r->waited_ms) + " ms";
  return true;
}

}  // namespace ctte::lab::usb
