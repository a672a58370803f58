// `ctte-lab lab usb [--lab FILE] [--json]` and `ctte-lab lab power-cycle BOARD [--lab FILE]`:
// the USB devices on this host, the inventory's boards marked by serial, and a board's hub
// port switched off and on (lab/usb/usb.h, docs/lab.md "USB"). Without USB devices both say so
// and exit 0.
#pragma once

#include <string>

#include "lab/usb/usb.h"

namespace ctte::cli {

struct LabUsbFlags {
  std::string lab_file;   ///< "" = no inventory
  bool json = false;
  std::string board;
  int off_ms = 2000, come_back_ms = 20000;
};

int RunLabUsb(const LabUsbFlags& f, lab::usb::UsbBackend* backend);
int RunPowerCycle(const LabUsbFlags& f, lab::usb::UsbBackend* backend);
/// The real backend, or nullptr with the reason printed (no USB subsystem).
std::unique_ptr<lab::usb::UsbBackend> OpenLibusb(const char* command);

}  // namespace ctte::cli
