// The ELF writer against the ELF reader: a generated program written and loaded back.
#include "oracle/elf_writer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "oracle/program_gen.h"

namespace ctte::oracle {
namespace {

TEST(ElfWriterTest, WrittenProgramLoadsBackWithSymbols) {
  const GeneratedProgram p = GenerateProgram(11, {});
  const std::string path =
      (std::filesystem::temp_directory_path() /
       ("ctte_elf_writer_test_" + std::to_string(static_cast<long>(getpid())) + ".elf"))
          .string();
  ASSERT_TRUE(WriteElf(path, p.entry, p.segments, p.symbols).ok());
  Result<ProgramImage> image = ProgramImage::Load(path);
  ASSERT_TRUE(image.ok()) << image.status().ToString();
  EXPECT_EQ(image->entry(), p.entry);
  ASSERT_EQ(image->segments().size(), p.segments.size());
  for (size_t i = 0; i < p.segments.size(); ++i) {
    EXPECT_EQ(image->segments()[i].bytes, p.segments[i].bytes);
    EXPECT_EQ(image->segments()[i].executable, p.segments[i].executable);
  }
  uint64_t f0 = 0;
  for (const Symbol& s : image->symbols()) {
    if (s.name == "f0") f0 = s.addr;
  }
  ASSERT_NE(f0, 0u);
  EXPECT_EQ(image->Symbolize(f0 + 8), "f0+0x8");
  std::filesystem::remove(path);
}

TEST(ElfWriterTest, AnRv32ProgramIsWrittenAsElf32AndLoadsBackAsRv32) {
  ProgramGenOptions o;
  o.xlen = Xlen::k32;
  const GeneratedProgram p = GenerateProgram(11, o);
  EXPECT_EQ(p.xlen, Xlen::k32);
  const std::string path =
      (std::filesystem::temp_directory_path() /
       ("ctte_elf_writer_test32_" + std::to_string(static_cast<long>(getpid())) + ".elf"))
          .string();
  ASSERT_TRUE(WriteElf(path, p.entry, p.segments, p.symbols, p.xlen).ok());
  Result<ProgramImage> image = ProgramImage::Load(path, Xlen::k32);
  ASSERT_TRUE(image.ok()) << image.status().ToString();
  EXPECT_EQ(image->xlen(), Xlen::k32);
  EXPECT_EQ(image->entry(), p.entry);
  ASSERT_EQ(image->segments().size(), p.segments.size());
  for (size_t i = 0; i < p.segments.size(); ++i) {
    EXPECT_EQ(image->segments()[i].vaddr, p.segments[i].vaddr);
    EXPECT_EQ(image->segments()[i].bytes, p.segments[i].bytes);
  }
  uint64_t f0 = 0;
  for (const Symbol& s : image->symbols()) {
    if (s.name == "f0") f0 = s.addr;
  }
  ASSERT_NE(f0, 0u);
  EXPECT_EQ(image->Symbolize(f0 + 8), "f0+0x8");
  // Asked for the other width, the load is refused naming both classes.
  Result<ProgramImage> as64 = ProgramImage::Load(path, Xlen::k64);
  ASSERT_FALSE(as64.ok());
  EXPECT_NE(as64.status().message().find("ELFCLASS32 (RV32)"), std::string::npos);
  EXPECT_NE(as64.status().message().find("need ELFCLASS64 (RV64)"), std::string::npos);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace ctte::oracle
