// `ctte-lab lab usb [--lab FILE] [--json]` and `ctte-lab lab power-cycle BOARD [--lab FILE]`:
// the USB devices on this host, the inventory's boards marked by serial, and a board's hub
// port switched off and on (lab/usb/usb.h, docs/lab.md "USB"). Without USB devices both say so
// and exit 0.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lab/net/inventory.h"
#include "lab/usb/usb.h"
#include "runner/board_health.h"

namespace ctte::cli {

struct LabUsbFlags {
  std::string lab_file;   ///< "" = no inventory
  bool json = false;
  std::string board;
  int off_ms = 2000, come_back_ms = 20000;
};

int RunLabUsb(const LabUsbFlags& f, lab::usb::UsbBackend* backend);
int RunPowerCycle(const LabUsbFlags& f, lab::usb::UsbBackend* backend);
/// The real backend (or, when CTTE_USB_FIXTURE names a bus file, the fixture backend: tests),
/// or nullptr with the reason printed (no USB subsystem).
std::unique_ptr<lab::usb::UsbBackend> OpenLibusb(const char* command);

/// The soak's before_quarantine hook: power-cycles the board's hub port through libusb
/// (lab::usb::PowerCycleBoard), says what it did on stderr.
std::function<bool(const runner::QuarantineRequest&)> PowerCycleBeforeQuarantine(
    std::vector<lab::net::InventoryBoard> boards);

}  // namespace ctte::cli
