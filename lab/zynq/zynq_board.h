// ZynqBoard: the Board contract (lab/board.h) on a Zynq UltraScale+ processing system under
// Linux, through the interfaces Linux offers (docs/zynq-board.md):
//  - deploy: the bitstream is stored (0600) as <sysroot>/lib/firmware/ctte-harness.bin, hashed
//    there (SHA-256 of the stored copy, checked before anything is loaded), then the harness's
//    device-tree overlay is applied through configfs (lab/zynq/overlay.h: the previous one
//    removed, `ctte-harness.dtbo` to the new folder's `path`, `status` "applied"); its
//    fpga-region loads the stored bitstream and the FPGA manager's state must read
//    "operating"; the identity (ctteBuildIdHi:Lo, ctteProfile, ctteCaps) is read from the
//    loaded design. A failed deploy leaves no overlay and no stored copy;
//  - clocks: PL0_REF_CTRL (fabric) and PL1_REF_CTRL (sink) in CRL_APB through a /dev/mem
//    window, source rates from the clk debugfs (sys/kernel/debug/clk/<pll>/clk_rate);
//    ReadClock() measures the clock with the harness's free-running counter over a timed
//    window (lab/zynq/clock_measure.h), never from the register;
//  - registers: the UIO device the overlay's register node makes (`ctte_harness`), offsets only
//    from the deploy request's register map (the manifest): an undeclared register is
//    NotFound, never 0;
//  - run: the workload's segments into guest memory (UIO `ctte_guest`), the plan block into the
//    plan memory (`ctte_plan`, lab/zynq/plan_block.h), ring base/size from the u-dma-buf, core
//    released from reset (cttehCoreControl), cttehCoreStatus polled until done, counters, the
//    console (plan memory's console area) and the ring (with wrap detection) read back. Every
//    memory copy is made of aligned volatile words (MmapWindow).
// With `emulated_fabric` the design's register file is the fabric emulator's mailbox
// (lab/zynq/register_window.h); everything else is the same code as on a board. Tests only.
//
// Threading: one thread at a time.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "lab/board.h"
#include "lab/zynq/clock_measure.h"
#include "lab/zynq/overlay.h"
#include "lab/zynq/pl_clock.h"
#include "lab/zynq/register_window.h"

namespace ctte::lab::zynq {

struct ZynqBoardOptions {
  std::string sysroot = "/";
  std::string serial;                      ///< "" = "zynq-<hostname>"
  std::string uio_name = "ctte_harness";   ///< the design's register file (UIO device name)
  std::string guest_uio = "ctte_guest";    ///< guest memory (UIO device name)
  std::string plan_uio = "ctte_plan";      ///< plan memory (UIO device name)
  std::string overlay_name = "ctte";       ///< configfs overlay folder
  std::string overlay_dtbo = "ctte-harness.dtbo";  ///< under lib/firmware (lab/zynq/ctte-harness.dtso)
  std::string fpga_manager = "fpga0";
  std::string udmabuf = "udmabuf0";        ///< the capture ring's reserved DMA buffer
  bool emulated_fabric = false;            ///< the fabric emulator serves the registers (tests)
  int load_timeout_ms = 10'000;            ///< bound on the overlay being applied
  int register_timeout_ms = 10'000;        ///< emulated: one register access
  int run_timeout_ms = 600'000;            ///< core released until cttehCoreStatus done
  ClockMeasureOptions clock_measure;       ///< ReadClock's timed window
};

class ZynqBoard : public Board {
 public:
  static Result<std::unique_ptr<ZynqBoard>> Create(const ZynqBoardOptions& options);
  ~ZynqBoard() override;

  Result<BoardIdentity> Identify() override;
  Result<DeployReceipt> Deploy(const DeployRequest& request) override;
  Result<uint64_t> SetClock(ClockDomain domain, uint64_t hz) override;
  Result<uint64_t> ReadClock(ClockDomain domain) override;
  Status WriteReg(uint32_t offset, uint32_t value) override;
  Result<uint32_t> ReadReg(uint32_t offset) override;
  Result<Capture> Run(const RunPlan& plan) override;

  /// The PL_REF_CTRL setting as the hardware holds it now (tests, docs).
  Result<PlClockSetting> ReadClockSetting(ClockDomain domain);
  Result<PlSourceRates> ReadSourceRates() const;

 private:
  explicit ZynqBoard(ZynqBoardOptions options) : o_(std::move(options)) {}
  std::string Path(const std::string& rel) const;
  void Unload();
  OverlayOptions Overlay() const;
  Status LoadDesign();
  Result<DeployReceipt> LoadVerified(const DeployRequest& request, const std::string& name,
                                     bool sent);
  Status OpenDesign();
  Result<std::unique_ptr<MmapWindow>> OpenMap(const std::string& uio, const char* what);
  Result<uint32_t> Offset(const std::string& name) const;
  Result<uint32_t> Named(const std::string& name);
  Result<uint64_t> Named64(const std::string& lo, const std::string& hi);
  Status SetNamed(const std::string& name, uint32_t value);
  Status CheckDeclared(uint32_t offset) const;
  Status ReadRing(uint64_t capacity, Capture* c);
  Status ReadConsole(Capture* c);

  ZynqBoardOptions o_;
  std::unique_ptr<MmapWindow> crl_;  ///< CRL_APB through /dev/mem
  std::unique_ptr<RegisterWindow> regs_;
  std::unique_ptr<MmapWindow> guest_, plan_;
  std::map<std::string, uint32_t> map_;  ///< the loaded design's register map
  std::string image_name_, image_sha256_, stored_path_;
};

}  // namespace ctte::lab::zynq
