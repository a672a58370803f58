// FixtureBackend (see fixture_backend.h).
#include "lab/usb/fixture_backend.h"

#include "base/json.h"

namespace ctte::lab::usb {

Result<std::unique_ptr<FixtureBackend>> FixtureBackend::Load(const std::string& path) {
  CTTE_ASSIGN_OR_RETURN(const nlohmann::ordered_json j, ParseJsonFile(path));
  std::vector<FixtureHub> hubs;
  std::vector<FixtureDevice> devices;
  const auto list = [&](const char* key) -> Result<nlohmann::ordered_json> {
    if (!j.is_object() || !j.contains(key)) return nlohmann::ordered_json::array();
    if (!j[key].is_array()) return Status::InvalidArgument(path + ": $." + key + ": not an array");
    return j[key];
  };
  CTTE_ASSIGN_OR_RETURN(const nlohmann::ordered_json jh, list("hubs"));
  for (size_t i = 0; i < jh.size(); ++i) {
    const std::string at = path + ": " + JsonPathIndex("$.hubs", i);
    FixtureHub h;
    CTTE_ASSIGN_OR_RETURN(h.path, GetString(jh[i], at, "path", 64));
    CTTE_ASSIGN_OR_RETURN(const uint64_t ports, GetU64(jh[i], at, "ports", 1, 255));
    h.ports = static_cast<int>(ports);
    CTTE_ASSIGN_OR_RETURN(const std::string sw, GetString(jh[i], at, "switching", 16));
    if (sw == "per-port") h.switching = PowerSwitching::kPerPort;
    else if (sw == "ganged") h.switching = PowerSwitching::kGanged;
    else if (sw == "none") h.switching = PowerSwitching::kNone;
    else return Status::InvalidArgument(at + ".switching: '" + sw + "', expected per-port, ganged or none");
    if (jh[i].contains("superspeed")) {
      CTTE_ASSIGN_OR_RETURN(h.superspeed, GetBool(jh[i], at, "superspeed"));
    }
    if (jh[i].contains("companion")) {
      CTTE_ASSIGN_OR_RETURN(h.companion, GetString(jh[i], at, "companion", 64));
    }
    if (jh[i].contains("ignores_power")) {
      CTTE_ASSIGN_OR_RETURN(h.ignores_power, GetBool(jh[i], at, "ignores_power"));
    }
    hubs.push_back(h);
  }
  CTTE_ASSIGN_OR_RETURN(const nlohmann::ordered_json jd, list("devices"));
  for (size_t i = 0; i < jd.size(); ++i) {
    const std::string at = path + ": " + JsonPathIndex("$.devices", i);
    FixtureDevice d;
    CTTE_ASSIGN_OR_RETURN(d.serial, GetString(jd[i], at, "serial", 128));
    CTTE_ASSIGN_OR_RETURN(d.hub, GetString(jd[i], at, "hub", 64));
    CTTE_ASSIGN_OR_RETURN(const uint64_t port, GetU64(jd[i], at, "port", 1, 255));
    d.port = static_cast<int>(port);
    if (jd[i].contains("vendor")) {
      CTTE_ASSIGN_OR_RETURN(const uint64_t v, GetU64(jd[i], at, "vendor", 0, 0xffff));
      d.vendor = static_cast<uint16_t>(v);
    }
    if (jd[i].contains("product")) {
      CTTE_ASSIGN_OR_RETURN(const uint64_t v, GetU64(jd[i], at, "product", 0, 0xffff));
      d.product = static_cast<uint16_t>(v);
    }
    if (jd[i].contains("enumerate_lists")) {
      CTTE_ASSIGN_OR_RETURN(const uint64_t v, GetU64(jd[i], at, "enumerate_lists", 0, 1000));
      d.enumerate_lists = static_cast<int>(v);
    }
    devices.push_back(d);
  }
  return std::make_unique<FixtureBackend>(std::move(hubs), std::move(devices));
}

FixtureBackend::FixtureBackend(std::vector<FixtureHub> hubs, std::vector<FixtureDevice> devices)
    : hubs_(std::move(hubs)), devices_(std::move(devices)) {
  for (const FixtureDevice& d : devices_) was_powered_[d.serial] = true;
}

const FixtureBackend::FixtureHub* FixtureBackend::FindHub(const std::string& path) const {
  for (const FixtureHub& h : hubs_) {
    if (h.path == path) return &h;
  }
  return nullptr;
}

bool FixtureBackend::SwitchOn(const FixtureHub& h, int port) const {
  if (h.ignores_power || h.switching == PowerSwitching::kNone) return true;
  const auto on = [&](int p) {
    auto it = port_on_.find({h.path, p});
    return it == port_on_.end() || it->second;
  };
  if (h.switching == PowerSwitching::kPerPort) return on(port);
  for (int p = 1; p <= h.ports; ++p) {  // ganged: off only when every port is off
    if (on(p)) return true;
  }
  return false;
}

bool FixtureBackend::Powered(const FixtureDevice& d) const {
  const FixtureHub* h = FindHub(d.hub);
  if (h == nullptr) return false;
  if (SwitchOn(*h, d.port)) return true;
  const FixtureHub* c = h->companion.empty() ? nullptr : FindHub(h->companion);
  return c != nullptr && SwitchOn(*c, d.port);  // the other half feeds the same VBUS
}

Result<std::vector<UsbDevice>> FixtureBackend::List() {
  std::vector<UsbDevice> out;
  for (const FixtureHub& h : hubs_) {
    out.push_back({0x05e3, static_cast<uint16_t>(h.superspeed ? 0x0626 : 0x0610), "", "", "hub",
                   h.path, true, ""});
  }
  for (const FixtureDevice& d : devices_) {
    const bool powered = Powered(d);
    if (powered && !was_powered_[d.serial]) countdown_[d.serial] = d.enumerate_lists;
    was_powered_[d.serial] = powered;
    if (!powered) continue;
    int& left = countdown_[d.serial];
    if (left > 0) {
      --left;
      continue;
    }
    const std::string port_path = d.hub.rfind("usb", 0) == 0
                                      ? d.hub.substr(3) + "-" + std::to_string(d.port)
                                      : d.hub + "." + std::to_string(d.port);
    out.push_back({d.vendor, d.product, d.serial, "", "", port_path, false, ""});
  }
  return out;
}

Result<HubInfo> FixtureBackend::Hub(const std::string& hub_path) {
  const FixtureHub* h = FindHub(hub_path);
  if (h == nullptr) return Status::NotFound("no USB hub at " + hub_path);
  HubInfo i;
  i.ports = h->ports;
  i.switching = h->switching;
  i.superspeed = h->superspeed;
  i.companion = h->companion;
  return i;
}

Result<bool> FixtureBackend::PortConnected(const std::string& hub_path, int port) {
  const FixtureHub* h = FindHub(hub_path);
  if (h == nullptr) return Status::NotFound("no USB hub at " + hub_path);
  if (port < 1 || port > h->ports) {
    return Status::IOError("hub " + hub_path + " port " + std::to_string(port) +
                           ": GET_STATUS: LIBUSB_ERROR_PIPE: Pipe error");
  }
  for (const FixtureDevice& d : devices_) {
    const FixtureHub* dh = FindHub(d.hub);
    const bool here = d.hub == hub_path || (dh != nullptr && dh->companion == hub_path);
    if (here && d.port == port && Powered(d)) return true;
  }
  return false;
}

Status FixtureBackend::SetPortPower(const std::string& hub_path, int port, bool on) {
  requests_.emplace_back(hub_path, port, on);
  const FixtureHub* h = FindHub(hub_path);
  if (h == nullptr) return Status::NotFound("no USB hub at " + hub_path);
  if (port < 1 || port > h->ports) {
    return Status::IOError("hub " + hub_path + " port " + std::to_string(port) + ": " +
                           (on ? "SET" : "CLEAR") + "_FEATURE PORT_POWER: LIBUSB_ERROR_PIPE");
  }
  if (h->switching == PowerSwitching::kGanged && on) {
    for (int p = 1; p <= h->ports; ++p) port_on_[{hub_path, p}] = true;
  } else {
    port_on_[{hub_path, port}] = on;
  }
  return Status::Ok();
}

}  // namespace ctte::lab::usb
