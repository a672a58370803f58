// The simulated platform's address map (docs/platform.md, "Memory map"): the one table of device
// windows and the rule that places RAM where a program is linked. The ISS (oracle/iss.cc), the
// program loader (oracle/program_image.cc: the refusals `campaign check` and `run` print), the
// simulated board (through the ISS) and the Zynq plan block (lab/zynq/plan_block.h: its guest
// window is the default RAM window) all read it from here.
//
// RAM is the default window [0x80000000, 0x84000000) (QEMU virt's and spike's DRAM: what the
// built-in workloads and generated programs use beyond their segments) plus every 4 KiB page a
// PT_LOAD segment covers, wherever it is linked in the XLEN address space, at most kRamLimit in
// all; a segment that overlaps a device window of the program's machine is refused.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "oracle/xlen.h"

namespace ctte::oracle {

class ProgramImage;

namespace platform {

inline constexpr uint64_t kPageSize = 4096;
/// The default RAM window, mapped for every program.
inline constexpr uint64_t kDefaultRamBase = 0x80000000ULL;
inline constexpr uint64_t kDefaultRamSize = 64ULL << 20;
/// The most RAM a program gets: the default window and its segments' pages elsewhere.
inline constexpr uint64_t kRamLimit = 256ULL << 20;

/// Which device set a program sees. A program with HTIF (a `tohost` symbol inside a loaded
/// segment) runs on Spike's map, as QEMU's spike machine has it: the CLINT only (it exits and
/// prints through HTIF). Any other program runs on QEMU virt's map: CLINT, test device, UART.
enum class Machine : uint8_t { kVirt, kSpike };
const char* MachineName(Machine m);  ///< "virt" or "spike"

struct DeviceWindow {
  const char* name;
  uint64_t base, size;
  bool on_virt, on_spike;
  bool On(Machine m) const { return m == Machine::kVirt ? on_virt : on_spike; }
};

/// The device windows (docs/platform.md's memory map; the ISS decodes exactly these).
inline constexpr DeviceWindow kSifiveTest{"SiFive test device", 0x00100000, 0x1000, true, false};
inline constexpr DeviceWindow kClint{"CLINT", 0x02000000, 0x10000, true, true};
inline constexpr DeviceWindow kUart{"UART", 0x10000000, 0x100, true, false};
inline constexpr DeviceWindow kDeviceWindows[] = {kSifiveTest, kClint, kUart};

/// "[0x10000000, 0x10000100)".
std::string RangeText(uint64_t base, uint64_t size);

/// The device window of `m` that [base, base + size) overlaps, or nullptr.
const DeviceWindow* OverlappingDevice(Machine m, uint64_t base, uint64_t size);

/// Why a segment at [vaddr, vaddr + memsz) cannot be mapped on an XLEN `xlen` core of machine
/// `m` ("segment [a, b) overlaps the UART window [..)", "... runs past the 32-bit address
/// space"), or "" when it can.
std::string SegmentRefusal(Machine m, Xlen xlen, uint64_t vaddr, uint64_t memsz);

/// The machine of a program: kSpike when it has a `tohost` symbol inside one of its segments.
Machine MachineOf(const ProgramImage& image);

struct RamRegion {
  uint64_t base = 0, size = 0;  ///< page-aligned
};

/// The RAM a program gets: the default window and the pages of every segment, merged into
/// disjoint regions sorted by base. Errors: a refused segment (SegmentRefusal) or more than
/// kRamLimit in all.
Result<std::vector<RamRegion>> RamRegions(const ProgramImage& image);

}  // namespace platform
}  // namespace ctte::oracle
