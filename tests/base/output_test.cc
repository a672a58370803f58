#include "base/output.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/files.h"

namespace ctte {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class OutputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("ctte_output_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(dir_, ec);
  }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  std::string Read(const std::string& path) const {
    Result<std::string> t = ReadFileText(path);
    if (t.ok()) return *t;
    std::string why = t.status().ToString();
    why.append(">");
    return why.insert(0, 1, '<');
  }
  // Everything in the test folder, so a leftover temporary file shows.
  std::vector<std::string> Listing() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename());
    std::sort(names.begin(), names.end());
    return names;
  }
  // Runs fn in a child process (unprivileged when we are root, so permissions apply) and
  // returns the Status message it reports, or "ok".
  std::string InChild(const std::function<Status()>& fn, bool drop_root) const {
    int pipe_fds[2];
    if (::pipe(pipe_fds) != 0) return "pipe failed";
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::close(pipe_fds[0]);
      if (drop_root && ::geteuid() == 0) {
        if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(3);
      }
      const Status s = fn();
      const std::string msg = s.ok() ? "ok" : s.ToString();
      if (::write(pipe_fds[1], msg.data(), msg.size()) < 0) ::_exit(4);
      ::_exit(0);
    }
    ::close(pipe_fds[1]);
    std::string out;
    char buf[512];
    ssize_t n;
    while ((n = ::read(pipe_fds[0], buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
    ::close(pipe_fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      return "child failed: status " + std::to_string(status);
    }
    return out;
  }
  fs::path dir_;
};

TEST_F(OutputTest, WritesANewFile) {
  ASSERT_TRUE(WriteOutputFile(Path("r.csv"), std::string_view("a,b\n")).ok());
  EXPECT_EQ(Read(Path("r.csv")), "a,b\n");
  EXPECT_EQ(Listing(), std::vector<std::string>{"r.csv"});
}

TEST_F(OutputTest, NewFileHonoursTheUmask) {
  const mode_t old = ::umask(022);
  ASSERT_TRUE(WriteOutputFile(Path("r.csv"), std::string_view("x")).ok());
  ::umask(old);
  struct stat st {};
  ASSERT_EQ(::stat(Path("r.csv").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
}

TEST_F(OutputTest, ReplacesARegularFileAndKeepsItsMode) {
  ASSERT_TRUE(WriteOutputFile(Path("r.csv"), std::string_view("old")).ok());
  ASSERT_EQ(::chmod(Path("r.csv").c_str(), 0640), 0);
  ASSERT_TRUE(WriteOutputFile(Path("r.csv"), std::string_view("new")).ok());
  EXPECT_EQ(Read(Path("r.csv")), "new");
  struct stat st {};
  ASSERT_EQ(::stat(Path("r.csv").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_EQ(Listing(), std::vector<std::string>{"r.csv"});
}

TEST_F(OutputTest, WritesEmptyAndBinaryData) {
  ASSERT_TRUE(WriteOutputFile(Path("e"), std::string_view()).ok());
  EXPECT_EQ(Read(Path("e")), "");
  const std::vector<uint8_t> bytes = {0, 1, 255, 0};
  ASSERT_TRUE(WriteOutputFile(Path("b"), bytes).ok());
  EXPECT_EQ(*ReadFileBytes(Path("b")), bytes);
}

TEST_F(OutputTest, SymlinkIsRefusedAndItsTargetUntouched) {
  ASSERT_TRUE(WriteOutputFile(Path("victim"), std::string_view("precious")).ok());
  ASSERT_EQ(::symlink(Path("victim").c_str(), Path("link").c_str()), 0);
  const Status s = WriteOutputFile(Path("link"), std::string_view("clobber"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr(Path("link") + ": is a symbolic link (to " + Path("victim")));
  EXPECT_THAT(s.message(), HasSubstr("refusing to replace it"));
  EXPECT_EQ(Read(Path("victim")), "precious");
  EXPECT_TRUE(fs::is_symlink(Path("link")));
  EXPECT_EQ(Listing(), (std::vector<std::string>{"link", "victim"}));
}

TEST_F(OutputTest, DanglingSymlinkIsRefused) {
  ASSERT_EQ(::symlink(Path("nowhere").c_str(), Path("link").c_str()), 0);
  EXPECT_THAT(WriteOutputFile(Path("link"), std::string_view("x")).message(),
              HasSubstr("is a symbolic link"));
  EXPECT_FALSE(fs::exists(Path("nowhere")));
}

TEST_F(OutputTest, FifoIsRefusedAndStaysAFifo) {
  ASSERT_EQ(::mkfifo(Path("fifo").c_str(), 0600), 0);
  const Status s = WriteOutputFile(Path("fifo"), std::string_view("x"));
  EXPECT_THAT(s.message(), HasSubstr(Path("fifo") + ": is a FIFO; refusing to replace it"));
  EXPECT_TRUE(fs::is_fifo(Path("fifo")));
  EXPECT_EQ(Listing(), std::vector<std::string>{"fifo"});
}

TEST_F(OutputTest, CharacterDeviceIsRefusedAndStaysADevice) {
  // As root, a private /dev/null twin in the test folder (never the real one); otherwise the
  // real /dev/null, which an unprivileged user cannot replace anyway.
  std::string dev = "/dev/null";
  if (::geteuid() == 0) {
    dev = Path("null");
    ASSERT_EQ(::mknod(dev.c_str(), S_IFCHR | 0666, makedev(1, 3)), 0);
  }
  const Status s = WriteOutputFile(dev, std::string_view("x"));
  EXPECT_THAT(s.message(), HasSubstr(dev + ": is a character device; refusing to replace it"));
  struct stat st {};
  ASSERT_EQ(::lstat(dev.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST_F(OutputTest, DirectoryIsRefused) {
  fs::create_directory(Path("sub"));
  EXPECT_THAT(WriteOutputFile(Path("sub"), std::string_view("x")).message(),
              HasSubstr(Path("sub") + ": is a directory; refusing to replace it"));
  EXPECT_TRUE(fs::is_directory(Path("sub")));
  EXPECT_THAT(WriteOutputFile(Path("sub") + "/", std::string_view("x")).message(),
              HasSubstr("names a folder"));
  EXPECT_TRUE(fs::is_empty(Path("sub")));
}

TEST_F(OutputTest, MissingParentIsRefusedNotCreated) {
  const Status s = WriteOutputFile(Path("no/such/r.csv"), std::string_view("x"));
  EXPECT_EQ(s.code(), Status::Code::kNotFound);
  EXPECT_EQ(s.message(), Path("no/such/r.csv") + ": parent folder " + Path("no/such") +
                             " does not exist");
  EXPECT_FALSE(fs::exists(Path("no")));
}

TEST_F(OutputTest, MissingParentIsCreatedWhenAsked) {
  OutputOptions o;
  o.create_parents = true;
  ASSERT_TRUE(WriteOutputFile(Path("a/b/r.csv"), std::string_view("x"), o).ok());
  EXPECT_EQ(Read(Path("a/b/r.csv")), "x");
}

TEST_F(OutputTest, ParentThatIsAFileIsRefused) {
  ASSERT_TRUE(WriteOutputFile(Path("f"), std::string_view("x")).ok());
  EXPECT_THAT(WriteOutputFile(Path("f/r.csv"), std::string_view("x")).message(),
              HasSubstr("parent " + Path("f") + " is a regular file, not a folder"));
}

TEST_F(OutputTest, ReplaceExistingCanBeForbidden) {
  ASSERT_TRUE(WriteOutputFile(Path("r"), std::string_view("old")).ok());
  OutputOptions o;
  o.replace_existing = false;
  EXPECT_THAT(WriteOutputFile(Path("r"), std::string_view("new"), o).message(),
              HasSubstr("exists; refusing to replace it"));
  EXPECT_EQ(Read(Path("r")), "old");
}

TEST_F(OutputTest, ReadOnlyFolderIsAPermissionErrorAndLeavesNothing) {
  ASSERT_TRUE(WriteOutputFile(Path("r"), std::string_view("old")).ok());
  ASSERT_EQ(::chmod(dir_.c_str(), 0555), 0);
  const std::string msg = InChild(
      [&] { return WriteOutputFile(Path("r"), std::string_view("new")); }, /*drop_root=*/true);
  ASSERT_EQ(::chmod(dir_.c_str(), 0755), 0);
  EXPECT_THAT(msg, HasSubstr("IOError: " + Path("r") + ": cannot create a file in folder " +
                             dir_.string() + ": permission denied"));
  EXPECT_EQ(Read(Path("r")), "old");
  EXPECT_EQ(Listing(), std::vector<std::string>{"r"});
}

TEST_F(OutputTest, FailedWriteRemovesTheTemporaryFile) {
  // RLIMIT_FSIZE makes write(2) fail with EFBIG halfway, as ENOSPC would.
  ASSERT_TRUE(WriteOutputFile(Path("r"), std::string_view("old")).ok());
  const std::string msg = InChild(
      [&] {
        ::signal(SIGXFSZ, SIG_IGN);
        struct rlimit lim {1000, 1000};
        ::setrlimit(RLIMIT_FSIZE, &lim);
        return WriteOutputFile(Path("r"), std::string(100000, 'x'));
      },
      /*drop_root=*/false);
  EXPECT_THAT(msg, HasSubstr("IOError: " + Path("r") + ": write failed: File too large"));
  EXPECT_EQ(Read(Path("r")), "old");
  EXPECT_EQ(Listing(), std::vector<std::string>{"r"});
}

TEST_F(OutputTest, SyncOptionWrites) {
  OutputOptions o;
  o.sync = true;
  ASSERT_TRUE(WriteOutputFile(Path("r"), std::string_view("x"), o).ok());
  EXPECT_EQ(Read(Path("r")), "x");
}

TEST_F(OutputTest, BareFileNameWritesInTheWorkingFolder) {
  const fs::path old = fs::current_path();
  fs::current_path(dir_);
  const Status s = WriteOutputFile("bare.txt", std::string_view("x"));
  fs::current_path(old);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(Read(Path("bare.txt")), "x");
}

TEST_F(OutputTest, LongFileNameStillGetsATemporaryName) {
  const std::string name(250, 'n');
  ASSERT_TRUE(WriteOutputFile(Path(name), std::string_view("x")).ok());
  EXPECT_EQ(Listing(), std::vector<std::string>{name});
}

TEST_F(OutputTest, WriteFileAtomicFollowsTheSameRule) {
  ASSERT_EQ(::mkfifo(Path("fifo").c_str(), 0600), 0);
  EXPECT_THAT(WriteFileAtomic(Path("fifo"), std::string("x")).message(), HasSubstr("is a FIFO"));
  ASSERT_TRUE(WriteFileAtomic(Path("ok"), std::string("x")).ok());
  EXPECT_EQ(Read(Path("ok")), "x");
}

TEST_F(OutputTest, CheckOutputPathWritesNothing) {
  EXPECT_TRUE(CheckOutputPath(Path("r.csv")).ok());
  EXPECT_FALSE(fs::exists(Path("r.csv")));
  ASSERT_EQ(::mkfifo(Path("fifo").c_str(), 0600), 0);
  EXPECT_THAT(CheckOutputPath(Path("fifo")).message(), HasSubstr("is a FIFO"));
  EXPECT_THAT(CheckOutputPath(Path("no/r.csv")).message(), HasSubstr("does not exist"));
  OutputOptions o;
  o.create_parents = true;
  EXPECT_TRUE(CheckOutputPath(Path("no/r.csv"), o).ok());
  EXPECT_FALSE(fs::exists(Path("no")));
  EXPECT_EQ(Listing(), std::vector<std::string>{"fifo"});
}

TEST_F(OutputTest, CheckWritableDir) {
  EXPECT_TRUE(CheckWritableDir(dir_.string()).ok());
  EXPECT_EQ(Listing(), std::vector<std::string>{});
  const Status missing = CheckWritableDir(Path("nope"));
  EXPECT_EQ(missing.code(), Status::Code::kNotFound);
  EXPECT_EQ(missing.message(), "folder " + Path("nope") + " does not exist");
  ASSERT_TRUE(WriteOutputFile(Path("f"), std::string_view("x")).ok());
  EXPECT_EQ(CheckWritableDir(Path("f")).message(), Path("f") + ": is a regular file, not a folder");
  fs::create_directory(Path("ro"));
  ASSERT_EQ(::chmod(Path("ro").c_str(), 0555), 0);
  EXPECT_EQ(InChild([&] { return CheckWritableDir(Path("ro")); }, /*drop_root=*/true),
            "IOError: " + Path("ro") + ": cannot create files in this folder: permission denied");
}

TEST(FilesTest, ReadRefusesDevicesAndFifosBeforeReading) {
  Result<std::vector<uint8_t>> r = ReadFileBytes("/dev/zero");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "/dev/zero: is a character device, not a regular file");
}

TEST(FilesTest, ReadErrorsCarryErrnoMeaning) {
  EXPECT_EQ(ReadFileBytes("/nonexistent/x").status().code(), Status::Code::kNotFound);
  EXPECT_EQ(ReadFileBytes("").status().message(), "empty file name");
  EXPECT_EQ(ErrnoStatus("p", EACCES).ToString(), "IOError: p: permission denied");
  EXPECT_EQ(ErrnoStatus("p", EPERM).code(), Status::Code::kIOError);
  EXPECT_EQ(ErrnoStatus("p", ENOSPC).message(), "p: no space left on device");
  EXPECT_EQ(ErrnoStatus("p", ENOTDIR).code(), Status::Code::kInvalidArgument);
}

TEST(FilesTest, ReadLimitIsEnforced) {
  const std::string path =
      (fs::temp_directory_path() / ("ctte_files_test_" + std::to_string(::getpid()))).string();
  ASSERT_TRUE(WriteFileAtomic(path, std::string(100, 'x')).ok());
  ReadLimits limits;
  limits.max_bytes = 99;
  EXPECT_EQ(ReadFileText(path, limits).status().message(),
            path + ": 100 bytes, larger than the 99-byte limit");
  limits.max_bytes = 100;
  EXPECT_TRUE(ReadFileText(path, limits).ok());
  fs::remove(path);
}

}  // namespace
}  // namespace ctte
