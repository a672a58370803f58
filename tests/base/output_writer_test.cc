// OutputFileWriter (chunked output by WriteOutputFile's rule), FormatHexShort and FormatHexLine.
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/files.h"
#include "base/output.h"
#include "base/text.h"

namespace ctte {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

TEST(FormatHexShortTest, MatchesHexShortEverywhere) {
  std::vector<uint64_t> values = {0, 1, 0xf, 0x10, 0xff, 0x80000000ULL, 0x123456789abcdefULL,
                                  ~0ULL, 1ULL << 63, (1ULL << 60) - 1};
  std::mt19937_64 rng(17);
  for (int i = 0; i < 10000; ++i) values.push_back(rng() >> (rng() % 64));
  for (uint64_t v : values) {
    char buf[kHexShortMax];
    const size_t n = FormatHexShort(v, buf);
    ASSERT_LE(n, kHexShortMax);
    EXPECT_EQ(std::string(buf, n), HexShort(v)) << v;
  }
}

TEST(FormatHexLineTest, IsHexShortAndANewlineForEveryLength) {
  std::vector<uint64_t> values = {0, 1, 9, 0xa, 0xf, 0x10, 0x80000000ULL, 0x80000ffeULL,
                                  0xffffffffULL, 0x100000000ULL, 0x123456789abcdefULL, ~0ULL};
  for (int bits = 1; bits <= 64; ++bits) {  // every digit count, with all-ones and one-bit values
    values.push_back(bits == 64 ? ~0ULL : (1ULL << bits) - 1);
    values.push_back(1ULL << (bits - 1));
  }
  std::mt19937_64 rng(23);
  for (int i = 0; i < 100000; ++i) values.push_back(rng() >> (rng() % 64));
  for (uint64_t v : values) {
    char buf[kHexLineRoom + 8];
    std::fill(std::begin(buf), std::end(buf), '#');
    const size_t n = FormatHexLine(v, buf);
    ASSERT_EQ(std::string(buf, n), HexShort(v) + "\n") << v;
    for (size_t i = kHexLineRoom; i < sizeof buf; ++i) ASSERT_EQ(buf[i], '#') << v;  // its room
  }
  // Broken on purpose, the comparison notices: the same line for a different value differs.
  char buf[kHexLineRoom];
  EXPECT_NE(std::string(buf, FormatHexLine(0xabc, buf)), HexShort(0xabd) + "\n");
}

class OutputWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("ctte_output_writer_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  std::vector<std::string> Listing() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename());
    std::sort(names.begin(), names.end());
    return names;
  }
  fs::path dir_;
};

TEST_F(OutputWriterTest, WritesLinesAcrossChunksLikeTheSlowPath) {
  auto w = OutputFileWriter::Open(Path("pcs.txt"));
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  std::string expected;
  // More than two chunks of lines, plus plain appends of every size class.
  for (uint64_t i = 0; i < 300000; ++i) {
    const uint64_t pc = 0x80000000ULL + i * 2;
    (*w)->AppendHexLine(pc);
    expected += HexShort(pc) + "\n";
  }
  (*w)->Append("tail\n");
  expected += "tail\n";
  const std::string big(OutputFileWriter::kChunk + 5, 'b');
  (*w)->Append(big);
  expected += big;
  EXPECT_EQ(Listing().size(), 1u);  // only the temporary file so far
  EXPECT_FALSE(fs::exists(Path("pcs.txt")));
  ASSERT_TRUE((*w)->Commit().ok());
  Result<std::string> got = ReadFileText(Path("pcs.txt"));
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(*got, expected);
  EXPECT_EQ(Listing(), std::vector<std::string>{"pcs.txt"});
}

TEST_F(OutputWriterTest, BatchedLinesAreTheSingleLinesBytes) {
  // AppendHexLines reuses the head of the previous line when only the last two digits change:
  // runs within 256 bytes, steps across a 256-byte boundary, non-8-digit values in between
  // (which must not leave a stale head behind), the 8-digit range's ends, across two chunks.
  std::vector<uint64_t> v;
  std::mt19937_64 rng(31);
  uint64_t pc = 0x80000000ULL;
  while (v.size() < 250000) {
    switch (rng() % 8) {
      case 0: pc = 0x10000000ULL + rng() % 0xf0000000ULL; break;  // any 8-digit value
      case 1: v.push_back(rng() >> (rng() % 64)); break;           // any length
      case 2: v.push_back(0x0fffffffULL); v.push_back(0x10000000ULL); break;
      case 3: v.push_back(0xffffffffULL); v.push_back(0x100000000ULL); break;
      default: break;
    }
    for (int k = static_cast<int>(rng() % 40); k > 0; --k) {
      v.push_back(pc);
      pc += rng() % 3 == 0 ? 4 : 2;
      if (pc > 0xffffffffULL) pc = 0x10000000ULL;
    }
    v.push_back(pc ^ 0x100);  // same low byte, other head: must not reuse the head
  }
  std::string expected;
  for (uint64_t x : v) expected += HexShort(x) + "\n";
  auto w = OutputFileWriter::Open(Path("batched.txt"));
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  for (size_t i = 0; i < v.size(); i += 4096) {
    (*w)->AppendHexLines(v.data() + i, std::min<size_t>(4096, v.size() - i));
  }
  ASSERT_TRUE((*w)->Commit().ok());
  Result<std::string> got = ReadFileText(Path("batched.txt"));
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_GT(got->size(), 2 * OutputFileWriter::kChunk);
  EXPECT_TRUE(*got == expected) << "first difference at byte "
                                << std::mismatch(got->begin(), got->end(), expected.begin(),
                                                 expected.end()).first - got->begin();
}

TEST_F(OutputWriterTest, UncommittedWriterLeavesTheOldFile) {
  ASSERT_TRUE(WriteOutputFile(Path("r"), std::string_view("old")).ok());
  {
    auto w = OutputFileWriter::Open(Path("r"));
    ASSERT_TRUE(w.ok());
    (*w)->AppendHexLine(1);
  }
  Result<std::string> got = ReadFileText(Path("r"));
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, "old");
  EXPECT_EQ(Listing(), std::vector<std::string>{"r"});
}

TEST_F(OutputWriterTest, RefusesWhatWriteOutputFileRefuses) {
  ASSERT_EQ(::mkfifo(Path("fifo").c_str(), 0644), 0);
  fs::create_symlink(Path("elsewhere"), Path("link"));
  for (const char* name : {"fifo", "link", "nodir/x"}) {
    auto w = OutputFileWriter::Open(Path(name));
    EXPECT_FALSE(w.ok()) << name;
    if (!w.ok()) {
      EXPECT_THAT(w.status().message(), HasSubstr(Path(name))) << name;
    }
  }
  EXPECT_EQ(Listing(), (std::vector<std::string>{"fifo", "link"}));
}

TEST_F(OutputWriterTest, WriteErrorIsReportedByCommitAndCleansUp) {
  // RLIMIT_FSIZE makes write(2) fail halfway, as ENOSPC would; the error surfaces at Commit().
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    struct rlimit lim {1000, 1000};
    ::setrlimit(RLIMIT_FSIZE, &lim);
    bool right = false;
    {  // the writer is destroyed before _exit(), which runs no destructors
      auto w = OutputFileWriter::Open(Path("r"));
      if (!w.ok()) ::_exit(3);
      for (int i = 0; i < 200000; ++i) (*w)->AppendHexLine(static_cast<uint64_t>(i));
      const Status s = (*w)->Commit();
      right = !s.ok() && s.message().find("write failed: File too large") != std::string::npos;
    }
    ::_exit(right ? 0 : 4);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_TRUE(Listing().empty());
}

}  // namespace
}  // namespace ctte
