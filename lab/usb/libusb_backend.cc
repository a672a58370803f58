// LibusbBackend (see libusb_backend.h).
#include "lab/usb/libusb_backend.h"

#include <libusb.h>

#include <string>

namespace ctte::lab::usb {

namespace {

constexpr uint16_t kPortFeaturePower = 8;  // USB 2.0 table 11-17, PORT_POWER
constexpr unsigned kTimeoutMs = 5000;
// bmRequestType 0x23: host-to-device, class, recipient other (a hub port).
constexpr uint8_t kHubPortRequest = static_cast<uint8_t>(LIBUSB_ENDPOINT_OUT) |
                                    static_cast<uint8_t>(LIBUSB_REQUEST_TYPE_CLASS) |
                                    static_cast<uint8_t>(LIBUSB_RECIPIENT_OTHER);
static_assert(kHubPortRequest == 0x23);
// 0xA0: device-to-host, class, device (GET_DESCRIPTOR of the hub); 0xA3: device-to-host,
// class, other (GET_STATUS of a port).
constexpr uint8_t kHubDescriptorRequest = 0xA0;
constexpr uint8_t kHubPortStatusRequest = 0xA3;

std::string Err(int rc) { return std::string(libusb_error_name(rc)) + ": " + libusb_strerror(rc); }

std::string PortPath(libusb_device* dev) {
  uint8_t ports[8];
  const int n = libusb_get_port_numbers(dev, ports, sizeof ports);
  const std::string bus = std::to_string(libusb_get_bus_number(dev));
  if (n <= 0) return "usb" + bus;
  std::string p = bus + "-";
  for (int i = 0; i < n; ++i) {
    if (i > 0) p.push_back('.');
    p.append(std::to_string(ports[i]));
  }
  return p;
}

std::string StringDescriptor(libusb_device_handle* h, uint8_t index) {
  if (index == 0) return "";
  unsigned char buf[256];
  const int n = libusb_get_string_descriptor_ascii(h, index, buf, sizeof buf);
  return n > 0 ? std::string(reinterpret_cast<char*>(buf), static_cast<size_t>(n)) : "";
}

}  // namespace

struct LibusbBackend::Ctx {
  libusb_context* c = nullptr;
};

Result<std::unique_ptr<LibusbBackend>> LibusbBackend::Create() {
  std::unique_ptr<LibusbBackend> b(new LibusbBackend());
  b->ctx_ = new Ctx();
  const int rc = libusb_init(&b->ctx_->c);
  if (rc != 0) {
    b->ctx_->c = nullptr;
    return Status::Unavailable("libusb_init: " + Err(rc) + " (no USB subsystem usable here)");
  }
  return b;
}

LibusbBackend::~LibusbBackend() {
  if (ctx_ != nullptr && ctx_->c != nullptr) libusb_exit(ctx_->c);
  delete ctx_;
}

Result<std::vector<UsbDevice>> LibusbBackend::List() {
  libusb_device** list = nullptr;
  const ssize_t n = libusb_get_device_list(ctx_->c, &list);
  if (n < 0) return Status::IOError("libusb_get_device_list: " + Err(static_cast<int>(n)));
  std::vector<UsbDevice> out;
  for (ssize_t i = 0; i < n; ++i) {
    libusb_device* dev = list[i];
    libusb_device_descriptor d{};
    if (libusb_get_device_descriptor(dev, &d) != 0) continue;
    UsbDevice u;
    u.vendor = d.idVendor;
    u.product = d.idProduct;
    u.port_path = PortPath(dev);
    u.is_hub = d.bDeviceClass == LIBUSB_CLASS_HUB;
    libusb_device_handle* h = nullptr;
    const int rc = libusb_open(dev, &h);
    if (rc == 0) {
      u.serial = StringDescriptor(h, d.iSerialNumber);
      u.manufacturer = StringDescriptor(h, d.iManufacturer);
      u.product_name = StringDescriptor(h, d.iProduct);
      libusb_close(h);
    } else {
      u.note = "cannot open: " + Err(rc);
    }
    out.push_back(std::move(u));
  }
  libusb_free_device_list(list, 1);
  return out;
}

namespace {

// The hub at `hub_path`, opened; `fn(handle, device)` runs with it, then everything is freed.
template <typename Fn>
auto WithHub(libusb_context* ctx, const std::string& hub_path, Fn fn) -> decltype(fn(nullptr, nullptr)) {
  libusb_device** list = nullptr;
  const ssize_t n = libusb_get_device_list(ctx, &list);
  if (n < 0) return Status::IOError("libusb_get_device_list: " + Err(static_cast<int>(n)));
  libusb_device* hub = nullptr;
  for (ssize_t i = 0; i < n && hub == nullptr; ++i) {
    libusb_device_descriptor d{};
    if (libusb_get_device_descriptor(list[i], &d) == 0 && d.bDeviceClass == LIBUSB_CLASS_HUB &&
        PortPath(list[i]) == hub_path) {
      hub = list[i];
    }
  }
  decltype(fn(nullptr, nullptr)) out = Status::NotFound("no USB hub at " + hub_path);
  if (hub != nullptr) {
    libusb_device_handle* h = nullptr;
    const int rc = libusb_open(hub, &h);
    if (rc != 0) {
      out = Status::IOError("hub " + hub_path + ": cannot open: " + Err(rc));
    } else {
      out = fn(h, hub);
      libusb_close(h);
    }
  }
  libusb_free_device_list(list, 1);
  return out;
}

// The hub's container ID (BOS descriptor), "" when it has none: the two halves of a USB 3 hub
// share it.
std::string ContainerId(libusb_context* ctx, libusb_device_handle* h) {
  libusb_bos_descriptor* bos = nullptr;
  if (libusb_get_bos_descriptor(h, &bos) != 0) return "";
  std::string id;
  for (uint8_t i = 0; i < bos->bNumDeviceCaps && id.empty(); ++i) {
    if (bos->dev_capability[i]->bDevCapabilityType != LIBUSB_BT_CONTAINER_ID) continue;
    libusb_container_id_descriptor* c = nullptr;
    if (libusb_get_container_id_descriptor(ctx, bos->dev_capability[i], &c) == 0) {
      id.assign(reinterpret_cast<const char*>(c->ContainerID), sizeof c->ContainerID);
      libusb_free_container_id_descriptor(c);
    }
  }
  libusb_free_bos_descriptor(bos);
  return id;
}

}  // namespace

Result<HubInfo> LibusbBackend::Hub(const std::string& hub_path) {
  std::string cid;
  Result<HubInfo> info = WithHub(ctx_->c, hub_path, [&](libusb_device_handle* h, libusb_device* dev) -> Result<HubInfo> {
    libusb_device_descriptor d{};
    libusb_get_device_descriptor(dev, &d);
    HubInfo i;
    i.superspeed = d.bcdUSB >= 0x0300;
    // GET_DESCRIPTOR, hub class: 0x29 (USB 2 hub) or 0x2A (SuperSpeed hub); bytes 2 bNbrPorts,
    // 3..4 wHubCharacteristics (bits 1:0 the power switching mode).
    unsigned char buf[16] = {};
    const uint16_t type = i.superspeed ? 0x2A : 0x29;
    const int n = libusb_control_transfer(h, kHubDescriptorRequest, LIBUSB_REQUEST_GET_DESCRIPTOR,
                                          static_cast<uint16_t>(type << 8), 0, buf, sizeof buf,
                                          kTimeoutMs);
    if (n < 5) {
      return Status::IOError("hub " + hub_path + ": GET_DESCRIPTOR (hub): " +
                             (n < 0 ? Err(n) : std::to_string(n) + " bytes"));
    }
    i.ports = buf[2];
    const unsigned lpsm = buf[3] & 3u;
    i.switching = lpsm == 0 ? PowerSwitching::kGanged
                            : lpsm == 1 ? PowerSwitching::kPerPort : PowerSwitching::kNone;
    cid = ContainerId(ctx_->c, h);
    return i;
  });
  if (!info.ok() || cid.empty()) return info;
  // The companion: another hub with the same container ID.
  Result<std::vector<UsbDevice>> devs = List();
  if (!devs.ok()) return info;
  for (const UsbDevice& u : *devs) {
    if (!u.is_hub || u.port_path == hub_path) continue;
    std::string other;
    (void)WithHub(ctx_->c, u.port_path, [&](libusb_device_handle* h, libusb_device*) -> Status {
      other = ContainerId(ctx_->c, h);
      return Status::Ok();
    });
    if (other == cid) {
      info->companion = u.port_path;
      break;
    }
  }
  return info;
}

Result<bool> LibusbBackend::PortConnected(const std::string& hub_path, int port) {
  return WithHub(ctx_->c, hub_path, [&](libusb_device_handle* h, libusb_device*) -> Result<bool> {
    unsigned char st[4] = {};
    const int n = libusb_control_transfer(h, kHubPortStatusRequest, LIBUSB_REQUEST_GET_STATUS, 0,
                                          static_cast<uint16_t>(port), st, sizeof st, kTimeoutMs);
    if (n != 4) {
      return Status::IOError("hub " + hub_path + " port " + std::to_string(port) +
                             ": GET_STATUS: " + (n < 0 ? Err(n) : std::to_string(n) + " bytes"));
    }
    return (st[0] & 1u) != 0;  // wPortStatus bit 0: PORT_CONNECTION
  });
}

Status LibusbBackend::SetPortPower(const std::string& hub_path, int port, bool on) {
  return WithHub(ctx_->c, hub_path, [&](libusb_device_handle* h, libusb_device*) -> Status {
    const int rc = libusb_control_transfer(
        h, kHubPortRequest, on ? LIBUSB_REQUEST_SET_FEATURE : LIBUSB_REQUEST_CLEAR_FEATURE,
        kPortFeaturePower, static_cast<uint16_t>(port), nullptr, 0, kTimeoutMs);
    if (rc < 0) {
      return Status::IOError("hub " + hub_path + " port " + std::to_string(port) + ": " +
                             (on ? "SET" : "CLEAR") + "_FEATURE PORT_POWER: " + Err(rc));
    }
    return Status::Ok();
  });
}

}  // namespace ctte::lab::usb
