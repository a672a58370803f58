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

Status LibusbBackend::SetPortPower(const std::string& hub_path, int port, bool on) {
  libusb_device** list = nullptr;
  const ssize_t n = libusb_get_device_list(ctx_->c, &list);
  if (n < 0) return Status::IOError("libusb_get_device_list: " + Err(static_cast<int>(n)));
  libusb_device* hub = nullptr;
  for (ssize_t i = 0; i < n && hub == nullptr; ++i) {
    libusb_device_descriptor d{};
    if (libusb_get_device_descriptor(list[i], &d) == 0 && d.bDeviceClass == LIBUSB_CLASS_HUB &&
        PortPath(list[i]) == hub_path) {
      hub = list[i];
    }
  }
  Status s = Status::Ok();
  if (hub == nullptr) {
    s = Status::NotFound("no USB hub at " + hub_path);
  } else {
    libusb_device_handle* h = nullptr;
    int rc = libusb_open(hub, &h);
    if (rc != 0) {
      s = Status::IOError("hub " + hub_path + ": cannot open: " + Err(rc));
    } else {
      rc = libusb_control_transfer(
          h, kHubPortRequest,
          on ? LIBUSB_REQUEST_SET_FEATURE : LIBUSB_REQUEST_CLEAR_FEATURE, kPortFeaturePower,
          static_cast<uint16_t>(port), nullptr, 0, kTimeoutMs);
      if (rc < 0) {
        s = Status::IOError("hub " + hub_path + " port " + std::to_string(port) + ": " +
                            (on ? "SET" : "CLEAR") + "_FEATURE PORT_POWER: " + Err(rc));
      }
      libusb_close(h);
    }
  }
  libusb_free_device_list(list, 1);
  return s;
}

}  // namespace ctte::lab::usb
