// The fabric emulator (a test fixture): plays the programmable logic and the Linux drivers
// behind a ZynqBoard's root prefix, so ZynqBoard runs end to end on a machine without an FPGA.
//
// Create() lays out the tree a freshly booted board shows (docs/zynq-board.md, "The fabric
// emulator"): the FPGA manager (state "unknown", nothing loaded), an empty configfs overlays
// folder, the clk debugfs rates, a sparse /dev/mem holding CRL_APB with the firmware-left
// PL0/PL1_REF_CTRL (100 MHz), and the u-dma-buf ring. Start() runs a thread that
//  - plays configfs and the kernel's overlay code: a new overlay folder gets its attributes; a
//    .dtbo named in its `path` is parsed (tests/lab/zynq/fdt.h) and applied only when it sets an
//    fpga-region firmware-name: that bitstream (lib/firmware/<name>, an encoder image .so) is
//    loaded into a SimBoard, its register map found in the image manifests of `image_dir` by
//    SHA-256, the FPGA manager's state set (`load_state`), and a UIO device created for each
//    generic-uio node (sys/class/uio/uioN, map0 from `reg`, dev/uioN: the register mailbox for
//    the register node, plain shared files for the memories); a removed folder takes its
//    devices with it. Writing fpga_manager/fpga0/firmware does nothing, as on Linux;
//  - answers the register mailbox by the manifest's map: encoder registers go to the model,
//    harness registers (lab/zynq/harness_regmap.json) are the harness, the clock counters count
//    at the rate the `clock` option says; an undeclared offset is a bus error;
//  - on cttehCoreControl.RUN: reads the plan block and the program from plan and guest memory,
//    the clocks from PL0/PL1_REF_CTRL, runs SimBoard::RunProgram on a worker thread, and writes
//    the capture into the ring at stream offset mod ring size, the console into the plan
//    memory's console area, the counters into the harness registers, and DONE into
//    cttehCoreStatus.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "base/status.h"
#include "lab/zynq/pl_clock.h"

namespace ctte::lab::zynq {

struct FabricEmulatorOptions {
  std::string sysroot;                 ///< created when missing
  std::string image_dir;               ///< image manifests (build/images)
  std::string uio_name = "ctte_harness";
  PlSourceRates rates{1'500'000'000, 1'000'000'000, 0};  ///< iopll, rpll, dpll_to_lpd
  uint64_t ring_bytes = 64ull << 20;   ///< the u-dma-buf size
  uint64_t ring_phys = 0x7f000000;
  uint64_t guest_bytes = 64ull << 20;
  uint64_t plan_bytes = 1ull << 20;
  std::string load_state = "operating";  ///< what the FPGA manager reports after a load
  bool create_uio = true;              ///< false: no UIO driver binds the overlay's nodes
  /// true: the register file is the mailbox (side effects, as the design has). false: a plain
  /// shared file holding the identity registers (the real MmapWindow path; nothing runs).
  bool register_mailbox = true;
  /// The PL clocks as the harness's counters see them: "register" (what PL0/PL1_REF_CTRL
  /// select), "slow" (half of that), "gated" (0 Hz), "firmware" (100 MHz whatever is written).
  std::string clock = "register";
};

class FabricEmulator {
 public:
  static Result<std::unique_ptr<FabricEmulator>> Create(const FabricEmulatorOptions& options);
  ~FabricEmulator();  ///< stops the thread
  void Start();
  void Stop();
  /// The last error the emulator met (a load it could not do, a run's harness fault).
  std::string last_error() const;

  struct Impl;

 private:
  explicit FabricEmulator(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ctte::lab::zynq
