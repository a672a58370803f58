// The platform's address map (oracle/platform.h): RAM where a program is linked, page-granular,
// within the limit; device windows refused by machine; and the ISS running such a program.
#include "oracle/platform.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "oracle/iss.h"
#include "oracle/iss_asm.h"
#include "oracle/program_image.h"

namespace ctte::oracle::platform {
namespace {

Segment Seg(uint64_t vaddr, uint64_t memsz) {
  Segment s;
  s.vaddr = vaddr;
  s.memsz = memsz;
  s.executable = true;
  s.bytes.assign(memsz, 0);
  return s;
}

TEST(PlatformTest, RamIsTheDefaultWindowAndTheSegmentsPagesMerged) {
  const ProgramImage image = ProgramImage::FromSegments(
      0x20010000, {Seg(0x20010010, 0x20), Seg(0x20011ff0, 0x20), Seg(0x83fff000, 0x2000)},
      {}, Xlen::k32);
  Result<std::vector<RamRegion>> ram = RamRegions(image);
  ASSERT_TRUE(ram.ok()) << ram.status().message();
  ASSERT_EQ(ram->size(), 2u);
  EXPECT_EQ((*ram)[0].base, 0x20010000u);  // three pages: 0x20010000..0x20012fff
  EXPECT_EQ((*ram)[0].size, 0x3000u);
  EXPECT_EQ((*ram)[1].base, kDefaultRamBase);  // the default window, grown by one page
  EXPECT_EQ((*ram)[1].size, kDefaultRamSize + 0x1000);
}

TEST(PlatformTest, ADeviceWindowIsRefusedByTheProgramsMachine_bad) {
  // Without HTIF the program runs on virt's map: the UART's window is refused, named.
  EXPECT_EQ(SegmentRefusal(Machine::kVirt, Xlen::k64, 0x10000000, 0x40),
            "segment [0x10000000, 0x10000040) overlaps the UART window [0x10000000, 0x10000100) "
            "(virt machine)");
  EXPECT_NE(SegmentRefusal(Machine::kVirt, Xlen::k32, 0xff000, 0x2000).find("SiFive test device"),
            std::string::npos);
  // Spike's map has the CLINT only.
  EXPECT_EQ(SegmentRefusal(Machine::kSpike, Xlen::k64, 0x10000000, 0x40), "");
  EXPECT_NE(SegmentRefusal(Machine::kSpike, Xlen::k64, 0x0200fff8, 0x10).find("CLINT window"),
            std::string::npos);
  // Which map: a tohost symbol inside a segment.
  const ProgramImage htif = ProgramImage::FromSegments(0x10000000, {Seg(0x10000000, 0x100)},
                                                       {{"tohost", 0x10000040, 8, false}});
  EXPECT_EQ(MachineOf(htif), Machine::kSpike);
  EXPECT_TRUE(RamRegions(htif).ok());
  const ProgramImage plain = ProgramImage::FromSegments(0x10000000, {Seg(0x10000000, 0x100)});
  EXPECT_EQ(MachineOf(plain), Machine::kVirt);
  EXPECT_NE(RamRegions(plain).status().message().find("UART window"), std::string::npos);
}

TEST(PlatformTest, TheAddressSpaceAndTheRamLimitBound_bad) {
  EXPECT_NE(SegmentRefusal(Machine::kVirt, Xlen::k32, 0xfffff000, 0x2000)
                .find("runs past the 32-bit address space"),
            std::string::npos);
  EXPECT_EQ(SegmentRefusal(Machine::kVirt, Xlen::k32, 0xfffff000, 0x1000), "");
  EXPECT_EQ(SegmentRefusal(Machine::kVirt, Xlen::k64, 0xfffffffffffff000ULL, 0x1000), "");
  EXPECT_NE(SegmentRefusal(Machine::kVirt, Xlen::k64, 0xfffffffffffff000ULL, 0x1001)
                .find("64-bit address space"),
            std::string::npos);
  // 64 MiB default + 3 x 64 MiB elsewhere = the limit; one page more is refused.
  std::vector<Segment> segs;
  for (uint64_t base : {0x100000000ULL, 0x200000000ULL, 0x300000000ULL}) {
    Segment s;
    s.vaddr = base;
    s.memsz = 64ULL << 20;  // bytes stay empty: RamRegions reads vaddr and memsz only
    segs.push_back(s);
  }
  EXPECT_TRUE(RamRegions(ProgramImage::FromSegments(0x100000000ULL, segs)).ok());
  segs.push_back(Seg(0x400000000ULL, 1));
  const Status over = RamRegions(ProgramImage::FromSegments(0x100000000ULL, segs)).status();
  EXPECT_NE(over.message().find("more than the platform's 0x10000000 (256 MiB)"),
            std::string::npos)
      << over.message();
}

// The ISS runs code linked outside the default window, loads and stores there and in the
// default window, faults on unmapped memory between, and exits through the test device.
TEST(PlatformTest, TheIssRunsAProgramLinkedAt0x20010000OnBothWidths) {
  for (Xlen xlen : {Xlen::k32, Xlen::k64}) {
    SCOPED_TRACE(XlenName(xlen));
    const uint64_t base = 0x20010000;
    Assembler as(base, xlen);
    as.Li(reg::t0, base + 0x800);  // data in the segment's page
    as.Li(reg::t1, 0x1234);
    as.S(2, reg::t0, reg::t1, 0);     // sw t1, 0(t0)
    as.I(0x03, reg::t2, 2, reg::t0, 0);  // lw t2, 0(t0)
    as.Li(reg::t0, 0x80000000);     // the default window
    as.S(2, reg::t0, reg::t2, 0);
    as.I(0x03, reg::a0, 5, reg::t0, 0);  // lhu a0, 0(t0)
    as.I(0x13, reg::a1, 1, reg::a0, 16);  // slli a1, a0, 16: exit code 0x1234 ...
    as.Li(reg::t1, 0x3333);
    as.R(0x33, reg::a1, 6, reg::a1, reg::t1, 0);  // ... or 0x3333
    as.Li(reg::t0, 0x100000);       // through the test device
    as.S(2, reg::t0, reg::a1, 0);
    Segment s = Seg(base, 0x1000);
    const std::vector<uint8_t> code = as.Finish();
    std::copy(code.begin(), code.end(), s.bytes.begin());
    Iss iss(ProgramImage::FromSegments(base, {s}, {}, xlen), {});
    Retired r;
    while (iss.Step(&r)) {
    }
    EXPECT_EQ(iss.core_stop(), "exited");
    EXPECT_EQ(iss.exit_code(), 0x1234);
  }
}

}  // namespace
}  // namespace ctte::oracle::platform
