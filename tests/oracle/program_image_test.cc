// ProgramImage: loading a real cross-compiled workload, and clear errors for bad inputs.
#include "oracle/program_image.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <vector>

#include "base/files.h"

namespace ctte::oracle {
namespace {

const std::string kLoop = std::string(CTTE_BINARY_DIR) + "/workloads/loop.elf";

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("ctte_pi_" + std::to_string(static_cast<long>(getpid())) + "_" + name))
      .string();
}

class ProgramImageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(kLoop)) GTEST_SKIP() << kLoop << " not built";
  }
};

TEST_F(ProgramImageTest, LoadsWorkloadSegmentsEntryAndSymbols) {
  Result<ProgramImage> image = ProgramImage::Load(kLoop);
  ASSERT_TRUE(image.ok()) << image.status().ToString();
  EXPECT_EQ(image->entry(), ProgramImage::kRamBase);
  ASSERT_FALSE(image->segments().empty());
  EXPECT_TRUE(image->segments()[0].executable);
  uint32_t raw = 0;
  ASSERT_TRUE(image->FetchInsn(image->entry(), &raw));
  EXPECT_NE(raw, 0u);
  bool has_main = false;
  for (const Symbol& s : image->symbols()) has_main |= s.name == "main" && s.is_function;
  EXPECT_TRUE(has_main);
}

TEST_F(ProgramImageTest, SymbolizesFunctionPlusOffset) {
  Result<ProgramImage> image = ProgramImage::Load(kLoop);
  ASSERT_TRUE(image.ok());
  uint64_t main_addr = 0;
  for (const Symbol& s : image->symbols()) {
    if (s.name == "main") main_addr = s.addr;
  }
  ASSERT_NE(main_addr, 0u);
  EXPECT_EQ(image->Symbolize(main_addr), "main");
  EXPECT_EQ(image->Symbolize(main_addr + 0x12), "main+0x12");
  EXPECT_EQ(image->Symbolize(ProgramImage::kRamBase), "_start");
  EXPECT_EQ(image->Symbolize(0x1000), "0x1000");
}

TEST(ProgramImageErrorTest, MissingFileNamesThePath) {
  Result<ProgramImage> image = ProgramImage::Load("/nonexistent/x.elf");
  ASSERT_FALSE(image.ok());
  EXPECT_EQ(image.status().code(), Status::Code::kNotFound);
  EXPECT_NE(image.status().message().find("/nonexistent/x.elf"), std::string::npos);
}

TEST(ProgramImageErrorTest, NonElfIsRejected) {
  const std::string path = TempPath("notelf");
  ASSERT_TRUE(WriteFileAtomic(path, std::string("hello, not an ELF at all")).ok());
  Result<ProgramImage> image = ProgramImage::Load(path);
  ASSERT_FALSE(image.ok());
  EXPECT_NE(image.status().message().find("not an ELF"), std::string::npos);
  std::filesystem::remove(path);
}

// Patches one field of the loop workload and checks the error names it.
class PatchedElfTest : public ProgramImageTest {
 protected:
  std::string Patch(size_t offset, const void* bytes, size_t n) {
    Result<std::vector<uint8_t>> file = ReadFileBytes(kLoop);
    EXPECT_TRUE(file.ok());
    std::memcpy(file->data() + offset, bytes, n);
    const std::string path = TempPath(std::to_string(offset));
    EXPECT_TRUE(WriteFileAtomic(path, *file).ok());
    return path;
  }
};

TEST_F(PatchedElfTest, WrongClassIsRejected) {
  const uint8_t elfclass32 = 1;
  const std::string path = Patch(4, &elfclass32, 1);
  Result<ProgramImage> image = ProgramImage::Load(path);
  ASSERT_FALSE(image.ok());
  EXPECT_NE(image.status().message().find("wrong ELF class"), std::string::npos);
  std::filesystem::remove(path);
}

TEST_F(PatchedElfTest, WrongMachineIsRejected) {
  const uint16_t em_x86_64 = 62;
  const std::string path = Patch(18, &em_x86_64, 2);
  Result<ProgramImage> image = ProgramImage::Load(path);
  ASSERT_FALSE(image.ok());
  EXPECT_NE(image.status().message().find("wrong ELF machine 62"), std::string::npos);
  std::filesystem::remove(path);
}

TEST_F(PatchedElfTest, ASegmentOnADeviceWindowIsRefusedNamingIt) {
  // e_phoff (offset 32) -> first program header; p_vaddr is at +16 in an Elf64_Phdr. The first
  // header of our link is the LOAD segment at 0x80000000; moved onto the CLINT it is refused
  // with the header, the segment's range and the window (oracle/platform.h).
  Result<std::vector<uint8_t>> file = ReadFileBytes(kLoop);
  ASSERT_TRUE(file.ok());
  uint64_t phoff = 0;
  std::memcpy(&phoff, file->data() + 32, 8);
  const uint64_t bad = 0x02000000;
  const std::string path = Patch(phoff + 16, &bad, 8);
  Result<ProgramImage> image = ProgramImage::Load(path);
  ASSERT_FALSE(image.ok());
  EXPECT_NE(image.status().message().find(": program header 0 (vaddr 0x2000000, memsz "),
            std::string::npos)
      << image.status().message();
  EXPECT_NE(image.status().message().find(") overlaps the CLINT window [0x2000000, 0x2010000)"),
            std::string::npos)
      << image.status().message();
  std::filesystem::remove(path);
}

TEST_F(PatchedElfTest, ASegmentLinkedOutsideTheDefaultWindowLoadsWhereItIsLinked) {
  Result<std::vector<uint8_t>> file = ReadFileBytes(kLoop);
  ASSERT_TRUE(file.ok());
  uint64_t phoff = 0;
  std::memcpy(&phoff, file->data() + 32, 8);
  const uint64_t low = 0x1000;
  const std::string path = Patch(phoff + 16, &low, 8);
  Result<ProgramImage> image = ProgramImage::Load(path);
  ASSERT_TRUE(image.ok()) << image.status().message();
  EXPECT_EQ(image->segments()[0].vaddr, 0x1000u);
  std::filesystem::remove(path);
}

TEST(ProgramImageMemoryTest, ReadAcrossSegmentBoundaryAndUnmapped) {
  Segment a{0x80000000, 4, true, {0x13, 0, 0, 0}};
  Segment b{0x80000004, 2, true, {0x82, 0x80}};
  ProgramImage image = ProgramImage::FromSegments(0x80000000, {b, a});
  uint8_t buf[6] = {};
  ASSERT_TRUE(image.Read(0x80000000, buf, 6));
  EXPECT_EQ(buf[4], 0x82);
  EXPECT_FALSE(image.Read(0x80000004, buf, 4));
  uint32_t raw = 0;
  ASSERT_TRUE(image.FetchInsn(0x80000004, &raw));
  EXPECT_EQ(raw, 0x8082u);
  EXPECT_FALSE(image.FetchInsn(0x80000006, &raw));
}

}  // namespace
}  // namespace ctte::oracle
