// The platform's address map (oracle/platform.h): device windows and RAM placement.
#include "oracle/platform.h"

#include <algorithm>

#include "base/text.h"
#include "oracle/program_image.h"

namespace ctte::oracle::platform {

const char* MachineName(Machine m) { return m == Machine::kVirt ? "virt" : "spike"; }

std::string RangeText(uint64_t base, uint64_t size) {
  std::string text = "[";  // appended piecewise: GCC 12 misreads "[" + std::string (-Wrestrict)
  text += HexShort(base);
  text += ", ";
  text += HexShort(base + size);
  text += ")";
  return text;
}

const DeviceWindow* OverlappingDevice(Machine m, uint64_t base, uint64_t size) {
  for (const DeviceWindow& d : kDeviceWindows) {
    if (d.On(m) && base < d.base + d.size && d.base < base + size) return &d;
  }
  return nullptr;
}

std::string SegmentRefusal(Machine m, Xlen xlen, uint64_t vaddr, uint64_t memsz) {
  const uint64_t top = xlen == Xlen::k32 ? (1ULL << 32) : 0;  // 0: the whole 64-bit space
  if (top != 0 ? (vaddr >= top || memsz > top - vaddr) : memsz > ~vaddr + 1 && vaddr != 0) {
    return "segment at " + HexShort(vaddr) + " (memsz " + HexShort(memsz) + ") runs past the " +
           std::to_string(XlenBits(xlen)) + "-bit address space";
  }
  if (memsz > kRamLimit) {
    return "segment " + RangeText(vaddr, memsz) + " is larger than the platform's RAM limit " +
           HexShort(kRamLimit) + " (256 MiB)";
  }
  if (const DeviceWindow* d = OverlappingDevice(m, vaddr, memsz)) {
    return "segment " + RangeText(vaddr, memsz) + " overlaps the " + d->name + " window " +
           RangeText(d->base, d->size) + " (" + MachineName(m) + " machine)";
  }
  return "";
}

Machine MachineOf(const ProgramImage& image) {
  for (const Symbol& s : image.symbols()) {
    if (s.name != "tohost") continue;
    for (const Segment& g : image.segments()) {
      if (s.addr >= g.vaddr && s.addr - g.vaddr < g.memsz && g.memsz - (s.addr - g.vaddr) >= 8) {
        return Machine::kSpike;
      }
    }
  }
  return Machine::kVirt;
}

Result<std::vector<RamRegion>> RamRegions(const ProgramImage& image) {
  const Machine m = MachineOf(image);
  std::vector<RamRegion> pages{{kDefaultRamBase, kDefaultRamSize}};
  for (const Segment& s : image.segments()) {
    if (s.memsz == 0) continue;
    const std::string why = SegmentRefusal(m, image.xlen(), s.vaddr, s.memsz);
    if (!why.empty()) return Status::InvalidArgument(why);
    const uint64_t first = s.vaddr & ~(kPageSize - 1);
    const uint64_t last = (s.vaddr + (s.memsz - 1)) & ~(kPageSize - 1);  // no wrap: checked
    pages.push_back({first, last - first + kPageSize});
  }
  std::sort(pages.begin(), pages.end(),
            [](const RamRegion& a, const RamRegion& b) { return a.base < b.base; });
  std::vector<RamRegion> merged;
  for (const RamRegion& r : pages) {
    // Adjacent or overlapping runs merge (an end of 0 is the top of the 64-bit space).
    if (!merged.empty() && r.base - merged.back().base <= merged.back().size) {
      RamRegion& b = merged.back();
      const uint64_t end = std::max(b.base + b.size - 1, r.base + r.size - 1);
      b.size = end - b.base + 1;
    } else {
      merged.push_back(r);
    }
  }
  uint64_t total = 0;
  for (const RamRegion& r : merged) total += r.size;
  if (total > kRamLimit) {
    return Status::InvalidArgument("the segments' pages and the default RAM window " +
                                   RangeText(kDefaultRamBase, kDefaultRamSize) + " need " +
                                   HexShort(total) + " bytes of RAM, more than the platform's " +
                                   HexShort(kRamLimit) + " (256 MiB)");
  }
  return merged;
}

}  // namespace ctte::oracle::platform
