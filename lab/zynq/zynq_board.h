// ZynqBoard: the Board contract (lab/board.h) on a Zynq UltraScale+ processing system under
// Linux, through the interfaces Linux offers (docs/zynq-board.md):
//  - deploy: the bitstream is stored in <sysroot>/lib/firmware, hashed there (SHA-256 of the
//    stored copy, checked before loading), loaded through the FPGA manager
//    (sys/class/fpga_manager/fpga0: flags, firmware) whose state must then read "operating";
//    the identity (ctteBuildIdHi:Lo, ctteProfile, ctteCaps) is read from the loaded design;
//  - clocks: PL0_REF_CTRL (fabric) and PL1_REF_CTRL (sink) in CRL_APB through a /dev/mem
//    window, source rates from the clk debugfs (sys/kernel/debug/clk/<pll>/clk_rate);
//    ReadClock() decodes the register as it reads now (lab/zynq/pl_clock.h);
//  - registers: the UIO device named by the design (map0), offsets only from the deploy
//    request's register map (the manifest): an undeclared register is NotFound, never 0;
//  - run: the workload's segments into guest memory (UIO map1), the plan block into the plan
//    memory (map2, lab/zynq/plan_block.h), ring base/size from the u-dma-buf, core released
//    from reset (cttehCoreControl), cttehCoreStatus polled until done, counters and the ring
//    (with wrap detection) read back.
// With `emulated_fabric` the design's register file is the fabric emulator's mailbox
// (lab/zynq/register_window.h) and the UIO maps are files <dev>.mapN; tests only.
//
// Threading: one thread at a time.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "lab/board.h"
#include "lab/zynq/pl_clock.h"
#include "lab/zynq/register_window.h"

namespace ctte::lab::zynq {

struct ZynqBoardOptions {
  std::string sysroot = "/";
  std::string serial;                      ///< "" = "zynq-<hostname>"
  std::string uio_name = "ctte_harness";   ///< the design's UIO device name
  std::string fpga_manager = "fpga0";
  std::string udmabuf = "udmabuf0";        ///< the capture ring's reserved DMA buffer
  bool emulated_fabric = false;            ///< the fabric emulator serves the registers (tests)
  int load_timeout_ms = 10'000;            ///< emulated: the emulator takes the firmware
  int register_timeout_ms = 10'000;        ///< emulated: one register access
  int run_timeout_ms = 600'000;            ///< core released until cttehCoreStatus done
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
  Status LoadBitstream(const std::string& file_name);
  Status OpenDesign();
  Result<std::unique_ptr<MmapWindow>> OpenMap(size_t index, const char* what);
  Result<uint32_t> Offset(const std::string& name) const;
  Result<uint32_t> Named(const std::string& name);
  Result<uint64_t> Named64(const std::string& lo, const std::string& hi);
  Status SetNamed(const std::string& name, uint32_t value);
  Status CheckDeclared(uint32_t offset) const;
  Status ReadRing(uint64_t capacity, Capture* c);

  ZynqBoardOptions o_;
  std::unique_ptr<MmapWindow> crl_;  ///< CRL_APB through /dev/mem
  std::unique_ptr<RegisterWindow> regs_;
  std::unique_ptr<MmapWindow> guest_, plan_;
  std::map<std::string, uint32_t> map_;  ///< the loaded design's register map
  std::string image_name_, image_sha256_, stored_path_;
};

}  // namespace ctte::lab::zynq
