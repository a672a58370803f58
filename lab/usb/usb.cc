// Hub-port parsing and the power-cycle sequence (see usb.h).
#include "lab/usb/usb.h"

#include <charconv>
#include <chrono>
#include <thread>

#include "base/text.h"

namespace ctte::lab::usb {

const char* PowerSwitchingName(PowerSwitching p) {
  switch (p) {
    case PowerSwitching::kGanged: return "ganged";
    case PowerSwitching::kPerPort: return "per-port";
    case PowerSwitching::kNone: return "none";
  }
  return "?";
}

Result<HubPort> ParseHubPort(const std::string& text) {
  const auto bad = [&](const std::string& why) {
    return Status::InvalidArgument("hub port '" + text + "': " + why +
                                   "; expected BUS-PORT[.PORT...], e.g. 1-2.3");
  };
  // One number of 1..255, bounded: from_chars stops at 3 digits' worth of value, never throws.
  const auto number = [&](size_t begin, size_t end, const char* what) -> Result<int> {
    int v = 0;
    const char* first = text.data() + begin;
    const char* last = text.data() + end;
    if (begin >= end) return bad(std::string("empty ") + what);
    const auto [ptr, ec] = std::from_chars(first, last, v);
    if (ec == std::errc::result_out_of_range || (ec == std::errc() && ptr == last && (v < 1 || v > 255))) {
      return bad(std::string(what) + " '" + text.substr(begin, end - begin) + "' outside 1..255");
    }
    if (ec != std::errc() || ptr != last) {
      return bad(std::string(what) + " '" + text.substr(begin, end - begin) + "' is not a number");
    }
    return v;
  };
  const size_t dash = text.find('-');
  if (dash == std::string::npos) return bad("no '-'");
  CTTE_ASSIGN_OR_RETURN(const int bus, number(0, dash, "bus"));
  std::vector<int> ports;
  for (size_t at = dash + 1;;) {
    const size_t dot = text.find('.', at);
    const size_t end = dot == std::string::npos ? text.size() : dot;
    CTTE_ASSIGN_OR_RETURN(const int p, number(at, end, "port"));
    ports.push_back(p);
    if (ports.size() > 7) return bad("more than 7 tiers");
    if (dot == std::string::npos) break;
    at = dot + 1;
  }
  HubPort h;
  h.port = ports.back();
  // "1-2.3": hub 1-2, port 3. "1-4": the root hub of bus 1 ("usb1"), port 4.
  if (ports.size() == 1) {
    h.hub_path = "usb";
    h.hub_path.append(std::to_string(bus));
  } else {
    h.hub_path = std::to_string(bus);
    h.hub_path.push_back('-');
    for (size_t i = 0; i + 1 < ports.size(); ++i) {
      if (i > 0) h.hub_path.push_back('.');
      h.hub_path.append(std::to_string(ports[i]));
    }
  }
  return h;
}

namespace {

// The hub (and its companion) checked for per-port switching of `port`.
Result<std::vector<std::string>> SwitchableHubs(UsbBackend& backend, const HubPort& hp) {
  std::vector<std::string> hubs = {hp.hub_path};
  CTTE_ASSIGN_OR_RETURN(const HubInfo info, backend.Hub(hp.hub_path));
  if (!info.companion.empty()) hubs.push_back(info.companion);
  for (const std::string& h : hubs) {
    Result<HubInfo> i = h == hp.hub_path ? Result<HubInfo>(info) : backend.Hub(h);
    if (!i.ok()) return i.status();
    if (i->switching != PowerSwitching::kPerPort) {
      return Status::InvalidArgument(
          "hub " + h + " reports " + PowerSwitchingName(i->switching) +
          " power switching (wHubCharacteristics bits 1:0): it cannot switch port " +
          std::to_string(hp.port) + " alone; not power-cycled");
    }
    if (hp.port > i->ports) {
      return Status::InvalidArgument("hub " + h + " has " + std::to_string(i->ports) +
                                     " ports, no port " + std::to_string(hp.port));
    }
  }
  return hubs;
}

}  // namespace

Result<PowerCycleResult> PowerCycle(UsbBackend& backend, const std::string& hub_port,
                                    const std::string& serial, const PowerCycleOptions& o) {
  CTTE_ASSIGN_OR_RETURN(const HubPort hp, ParseHubPort(hub_port));
  const auto sleep = o.sleep ? o.sleep : [](int ms) {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  };
  PowerCycleResult r;
  CTTE_ASSIGN_OR_RETURN(r.hubs, SwitchableHubs(backend, hp));
  const auto seen = [&]() -> Result<bool> {
    if (serial.empty()) return false;
    CTTE_ASSIGN_OR_RETURN(const std::vector<UsbDevice> devs, backend.List());
    for (const UsbDevice& d : devs) {
      if (d.serial == serial) return true;
    }
    return false;
  };
  const auto present = [&]() -> Result<bool> {  // the serial, or anything on the port
    CTTE_ASSIGN_OR_RETURN(const bool s, seen());
    if (s) return true;
    for (const std::string& h : r.hubs) {
      CTTE_ASSIGN_OR_RETURN(const bool c, backend.PortConnected(h, hp.port));
      if (c) return true;
    }
    return false;
  };
  const std::string what = "hub " + hp.hub_path + " port " + std::to_string(hp.port);
  CTTE_ASSIGN_OR_RETURN(r.was_present, present());
  const auto power = [&](bool on) -> Status {
    Status first = Status::Ok();
    for (const std::string& h : r.hubs) {  // on: every half, even after an error
      Status s = backend.SetPortPower(h, hp.port, on);
      if (!s.ok() && first.ok()) first = s;
      if (!s.ok() && !on) return first;
    }
    return first;
  };
  if (Status s = power(false); !s.ok()) {
    (void)power(true);
    return s;
  }
  // Off: the device must go (at least off_ms; then at most come_back_ms more).
  bool gone = false;
  int off = 0;
  for (;; off += o.poll_ms) {
    Result<bool> p = present();
    if (!p.ok()) {
      (void)power(true);
      return p.status();
    }
    if (!gone && !*p) {
      gone = true;
      r.gone_after_ms = off;
    }
    if (gone && off >= o.off_ms) break;
    if (off >= o.off_ms + o.come_back_ms) break;
    sleep(o.poll_ms);
  }
  CTTE_RETURN_IF_ERROR(power(true));
  if (!gone) {
    return Status::IOError(what + " switched off for " + std::to_string(off) +
                           " ms but " + (serial.empty() ? "the port" : "serial '" + serial + "'") +
                           " never went away: the hub did not cut the port's power; nothing "
                           "was power-cycled");
  }
  const auto back = [&]() -> Result<bool> {
    if (!serial.empty()) return seen();
    return present();
  };
  for (r.waited_ms = 0;; r.waited_ms += o.poll_ms) {
    CTTE_ASSIGN_OR_RETURN(const bool b, back());
    if (b) {
      r.came_back = true;
      return r;
    }
    if (r.waited_ms >= o.come_back_ms) break;
    sleep(o.poll_ms);
  }
  return Status::Timeout("power-cycled " + what + ": " +
                         (serial.empty() ? "the port" : "serial '" + serial + "'") +
                         " did not come back within " + std::to_string(o.come_back_ms) + " ms");
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
  *note = "hub port " + link.hub_port + " power-cycled; serial " + link.serial + " gone after " +
          std::to_string(r->gone_after_ms) + " ms, back after " + std::to_string(r->waited_ms) +
          " ms";
  return true;
}

}  // namespace ctte::lab::usb
