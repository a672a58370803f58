// The harness's device-tree overlay through the kernel's configfs overlay interface
// (/sys/kernel/config/device-tree/overlays/<name>/{path,dtbo,status}, as in the Xilinx kernels
// the KV260 runs; docs/zynq-board.md "The overlay"):
//   mkdir <name>                 the kernel gives the folder its attributes
//   echo ctte-harness.dtbo > path  the kernel reads lib/firmware/<path> and applies it: the
//                                fpga-region loads its firmware-name, then creates its devices
//   cat status                   "applied" (or "unapplied")
//   rmdir <name>                 removes the overlay and its devices
// And the bitstream store: the verified copy the overlay's firmware-name names, written 0600.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace ctte::lab::zynq {

/// The bitstream the harness overlay's firmware-name names (lab/zynq/ctte-harness.dtso).
inline constexpr const char* kHarnessFirmware = "ctte-harness.bin";

struct OverlayOptions {
  std::string sysroot = "/";
  std::string name = "ctte";               ///< the configfs folder
  std::string dtbo = "ctte-harness.dtbo";  ///< file name under lib/firmware
  int timeout_ms = 10'000;                 ///< bound on the attributes and on "applied"
};

/// "<sysroot>/sys/kernel/config/device-tree/overlays/<name>".
std::string OverlayDir(const OverlayOptions& o);
/// rmdir of the overlay folder when it exists (the kernel removes the overlay's devices).
Status RemoveOverlay(const OverlayOptions& o);
/// mkdir, `path` = o.dtbo, then `status` must read "applied"; errors name the folder and what
/// was read. NotFound when configfs or the .dtbo is missing.
Status ApplyOverlay(const OverlayOptions& o);

/// Writes `bytes` to `path` mode 0600 (temporary file, fchmod, rename; never follows a link).
Status WritePrivateFile(const std::string& path, const std::vector<uint8_t>& bytes);

}  // namespace ctte::lab::zynq
