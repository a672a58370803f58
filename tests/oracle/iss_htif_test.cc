// HTIF in the ISS (oracle/iss_htif.cc, docs/platform.md "HTIF"): tohost/fromhost by symbol; exit
// with a code; console through the syscall proxy's write; anything else a fatal platform error
// naming the request. The example program campaigns/examples/htif_hello.c exits with code 3
// after printing one line.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "oracle/iss.h"
#include "oracle/iss_asm.h"
#include "oracle/program_image.h"

namespace ctte::oracle {
namespace {

constexpr uint64_t kBase = ProgramImage::kRamBase;
constexpr uint64_t kToHost = kBase + 0x1000, kFromHost = kBase + 0x1040;

std::string Example(const char* name) {
  return std::string(CTTE_BINARY_DIR) + "/workloads/examples/" + name + ".elf";
}

struct Outcome {
  StopReason stop;
  int exit_code;
  std::string console, fatal;
};

Outcome RunToEnd(const ProgramImage& image) {
  IssOptions opts;
  opts.max_instructions = 1'000'000;
  Iss iss(image, opts);
  Retired r;
  while (iss.Step(&r)) {
  }
  return {iss.stop_reason(), iss.exit_code(), iss.console(), iss.fatal_message()};
}

// A program that stores `value` to tohost with sd, then spins; the image names the symbols
// tohost and fromhost unless `symbols` is false.
ProgramImage StoreToHost(uint64_t value, bool symbols = true) {
  Assembler as(kBase);
  as.Li(5, static_cast<int64_t>(kToHost));
  as.Li(6, static_cast<int64_t>(value));
  as.S(3, 5, 6, 0);  // sd t1, 0(t0)
  Assembler::Label spin = as.NewLabel();
  as.Bind(spin);
  as.Jal(0, spin);
  Segment code{kBase, 0, true, as.Finish()};
  code.memsz = code.bytes.size();
  Segment data{kToHost, 0x80, false, std::vector<uint8_t>(0x80, 0)};
  std::vector<Symbol> syms;
  if (symbols) syms = {{"tohost", kToHost, 8, false}, {"fromhost", kFromHost, 8, false}};
  return ProgramImage::FromSegments(kBase, {code, data}, syms);
}

TEST(IssHtifTest, TheExampleExitsWithCodeThreeAndPrintsItsLine) {
  // Both widths: the -rv32 builds are ELFCLASS32, tohost written by two 32-bit stores.
  for (const char* name :
       {"htif_hello", "htif_hello_wait", "htif_hello-rv32", "htif_hello_wait-rv32"}) {
    if (!std::filesystem::exists(Example(name))) {
      GTEST_SKIP() << Example(name) << " not built (CTTE_BUILD_WORKLOADS)";
    }
    const bool rv32 = std::string(name).ends_with("-rv32");
    Result<ProgramImage> image = ProgramImage::Load(Example(name), rv32 ? Xlen::k32 : Xlen::k64);
    ASSERT_TRUE(image.ok()) << image.status().ToString();
    const Outcome o = RunToEnd(*image);
    // The waiting variant only gets here when fromhost was answered.
    EXPECT_EQ(o.stop, StopReason::kExited) << name << ": " << o.fatal;
    EXPECT_EQ(o.exit_code, 3) << name;
    EXPECT_EQ(o.console.rfind("hello from htif, sum=0x", 0), 0u) << name << ": " << o.console;
    EXPECT_EQ(o.console.size(), std::string("hello from htif, sum=0x").size() + 16 + 1) << name;
    EXPECT_EQ(o.console.back(), '\n') << name;
  }
}

// RV32: tohost takes two 32-bit stores; the request is posted by the one that writes the upper
// word (as QEMU's spike machine), so storing the lower word alone does nothing.
TEST(IssHtifTest, OnRv32TheUpperWordStorePostsTheRequest) {
  for (bool upper : {false, true}) {
    Assembler as(kBase, Xlen::k32);
    as.Li(5, static_cast<int64_t>(kToHost));
    as.Li(6, (5 << 1) | 1);  // exit code 5
    as.S(2, 5, 6, 0);        // sw t1, 0(t0): the lower word
    if (upper) as.S(2, 5, 0, 4);  // sw zero, 4(t0): the upper word
    Assembler::Label spin = as.NewLabel();
    as.Bind(spin);
    as.Jal(0, spin);
    Segment code{kBase, 0, true, as.Finish()};
    code.memsz = code.bytes.size();
    Segment data{kToHost, 0x80, false, std::vector<uint8_t>(0x80, 0)};
    const ProgramImage image = ProgramImage::FromSegments(
        kBase, {code, data}, {{"tohost", kToHost, 8, false}, {"fromhost", kFromHost, 8, false}},
        Xlen::k32);
    const Outcome o = RunToEnd(image);
    if (upper) {
      EXPECT_EQ(o.stop, StopReason::kExited) << o.fatal;
      EXPECT_EQ(o.exit_code, 5);
    } else {
      EXPECT_EQ(o.stop, StopReason::kMaxInstructions);
    }
  }
}

TEST(IssHtifTest, ExitCodesComeFromThePayload) {
  for (int code : {0, 1, 3, 255}) {
    const Outcome o = RunToEnd(StoreToHost((static_cast<uint64_t>(code) << 1) | 1));
    EXPECT_EQ(o.stop, StopReason::kExited);
    EXPECT_EQ(o.exit_code, code);
  }
}

TEST(IssHtifTest, ConsolePutcOfDeviceOneIsServed) {
  IssOptions opts;
  opts.max_instructions = 200;
  Iss iss(StoreToHost((1ULL << 56) | (1ULL << 48) | 'A'), opts);
  Retired r;
  while (iss.Step(&r)) {
  }
  EXPECT_EQ(iss.console(), "A");
  EXPECT_EQ(iss.stop_reason(), StopReason::kMaxInstructions);
}

TEST(IssHtifTest, AnUnknownRequestIsAFatalPlatformErrorNamingIt_bad) {
  const Outcome o = RunToEnd(StoreToHost((5ULL << 56) | (2ULL << 48) | 0x1234));
  EXPECT_EQ(o.stop, StopReason::kFatal);
  EXPECT_NE(o.fatal.find("HTIF: unsupported request 0x0502000000001234"), std::string::npos)
      << o.fatal;
  EXPECT_NE(o.fatal.find("device 5, command 2"), std::string::npos) << o.fatal;
}

TEST(IssHtifTest, AnUnsupportedSyscallIsAFatalPlatformErrorNamingIt_bad) {
  // magic_mem at kToHost + 0x40 is all zero: syscall 0 (not write).
  const Outcome o = RunToEnd(StoreToHost(kToHost + 0x40));
  EXPECT_EQ(o.stop, StopReason::kFatal);
  EXPECT_NE(o.fatal.find("unsupported syscall proxy request: syscall 0("), std::string::npos)
      << o.fatal;
}

TEST(IssHtifTest, WithoutTheSymbolsTheStoreIsPlainMemory) {
  IssOptions opts;
  opts.max_instructions = 200;
  Iss iss(StoreToHost(7, false), opts);
  Retired r;
  while (iss.Step(&r)) {
  }
  EXPECT_EQ(iss.stop_reason(), StopReason::kMaxInstructions);
}

}  // namespace
}  // namespace ctte::oracle
