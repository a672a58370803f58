// Database::OpenReadOnly and the error labels of opening: read-only files and folders (as root
// too), WAL files without their -shm, missing files, directories, newer schemas.
#include <gtest/gtest.h>

#include <filesystem>

#include "db/database.h"
#include "tests/db/db_files.h"
#include "tests/db/db_fixture.h"

namespace ctte::db {
namespace {

using testing::AsUnprivileged;
using testing::Campaign;
using testing::MakeRun;
using testing::ReadAll;
using testing::ScratchDir;

// A database with one campaign of `runs` green runs at `path`, closed (WAL checkpointed).
void WriteRuns(const std::string& path, int runs) {
  auto db = Database::Open(path);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  const int64_t c = *(*db)->UpsertCampaign(Campaign("smoke", 1));
  for (int i = 0; i < runs; ++i) {
    ASSERT_TRUE((*db)->RecordRun(MakeRun(c, static_cast<uint64_t>(i), RunStatus::kGreen, "loop",
                                         "htm"), {}).ok());
  }
}

// "runs=N" or the error, as text (the child process of AsUnprivileged reports through it).
std::string CountRuns(const std::string& path) {
  auto db = Database::OpenReadOnly(path);
  if (!db.ok()) return db.status().ToString();
  auto c = (*db)->Campaigns();
  if (!c.ok()) return c.status().ToString();
  return "runs=" + std::to_string(c->empty() ? 0 : c->front().total());
}

TEST(ReadOnlyTest, ReadsAReadOnlyFileInAReadOnlyFolderWithoutChangingIt) {
  ScratchDir dir;
  const std::string path = dir.File("ctte.db");
  WriteRuns(path, 3);
  const std::string before = ReadAll(path);
  dir.Lock();
  ASSERT_FALSE(std::filesystem::exists(path + "-shm"));  // so SQLite cannot set up WAL reading
  const std::string as_user = AsUnprivileged([&] { return CountRuns(path); });
  if (as_user.starts_with("SKIP")) GTEST_SKIP() << as_user;
  EXPECT_EQ(as_user, "runs=3");
  EXPECT_EQ(CountRuns(path), "runs=3");  // as whoever runs the tests (root: bits ignored)
  EXPECT_EQ(ReadAll(path), before);
  // SQLite may leave an empty -wal next to a WAL file it read (where it could create one).
  std::error_code ec;
  EXPECT_EQ(std::filesystem::file_size(path + "-wal", ec), ec ? static_cast<uintmax_t>(-1) : 0u);
}

TEST(ReadOnlyTest, ReadsChangesWaitingInTheWalWhenItsShmIsThere) {
  ScratchDir src("_src"), dir;
  const std::string path = src.File("ctte.db");
  WriteRuns(path, 1);
  auto writer = Database::Open(path);  // keeps the WAL: its changes are not checkpointed
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->RecordRun(MakeRun(1, 7, RunStatus::kRed, "sort", "btm"), {}).ok());
  for (const char* s : {"", "-wal", "-shm"}) {
    std::filesystem::copy_file(path + s, dir.File(std::string("ctte.db") + s));
  }
  dir.Lock();
  const std::string out = AsUnprivileged([&] { return CountRuns(dir.File("ctte.db")); });
  if (out.starts_with("SKIP")) GTEST_SKIP() << out;
  EXPECT_EQ(out, "runs=2");
}

TEST(ReadOnlyTest, AWalWithChangesAndNoShmInAReadOnlyFolderIsAClearError) {
  ScratchDir src("_src"), dir;
  const std::string path = src.File("ctte.db");
  WriteRuns(path, 1);
  auto writer = Database::Open(path);
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->RecordRun(MakeRun(1, 7, RunStatus::kRed, "sort", "btm"), {}).ok());
  std::filesystem::copy_file(path, dir.File("ctte.db"));
  std::filesystem::copy_file(path + "-wal", dir.File("ctte.db-wal"));
  dir.Lock();
  const std::string out = AsUnprivileged([&] { return CountRuns(dir.File("ctte.db")); });
  if (out.starts_with("SKIP")) GTEST_SKIP() << out;
  if (::geteuid() != 0 && out == "runs=2") GTEST_SKIP() << "folder is writable to this user";
  EXPECT_NE(out.find("-wal holds changes"), std::string::npos) << out;  // never stale rows
}

TEST(ReadOnlyTest, WritingAReadOnlyFileIsPermissionDeniedNotNotFound) {
  ScratchDir dir;
  const std::string path = dir.File("ctte.db");
  WriteRuns(path, 1);
  dir.Lock();
  const std::string out = AsUnprivileged([&] {
    auto db = Database::Open(path);  // still reads, as before OpenReadOnly existed
    if (!db.ok()) return db.status().ToString();
    if (!(*db)->read_only() || !(*db)->RunById(1).ok()) return std::string("not read-only");
    return (*db)->UpsertBoard({"sim", "sim-0", ""}).status().ToString();
  });
  if (out.starts_with("SKIP")) GTEST_SKIP() << out;
  EXPECT_EQ(out, "IOError: " + path + ": cannot open for writing: Permission denied");
  EXPECT_NE(out.find(path), std::string::npos) << out;
}

TEST(ReadOnlyTest, AReadOnlyFileThatNeedsAMigrationIsRefusedForWriting) {
  ScratchDir dir;
  const std::string path = dir.File("old.db");
  { ASSERT_TRUE(Database::TEST_OpenAtVersion(path, 1).ok()); }
  dir.Lock();
  const std::string out = AsUnprivileged([&] {
    auto db = Database::Open(path);
    return db.ok() ? std::string("opened") : db.status().ToString();
  });
  if (out.starts_with("SKIP")) GTEST_SKIP() << out;
  EXPECT_EQ(out, "IOError: " + path + ": cannot open for writing: Permission denied");
}

TEST(ReadOnlyTest, NoMigrationAndNoWritesOnAReadOnlyOpen) {
  ScratchDir dir;
  const std::string path = dir.File("old.db");
  {
    auto db = Database::TEST_OpenAtVersion(path, 1);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    const int64_t c = *(*db)->UpsertCampaign(Campaign("smoke", 1));
    ASSERT_TRUE((*db)->RecordRun(MakeRun(c, 0, RunStatus::kInfra, "loop", "htm"), {}).ok());
  }
  auto db = Database::OpenReadOnly(path);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  EXPECT_TRUE((*db)->read_only());
  EXPECT_EQ(*(*db)->SchemaVersion(), 1);
  auto runs = (*db)->RunsOfCampaign(1);
  ASSERT_TRUE(runs.ok()) << runs.status().ToString();
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ(runs->front().earlier_attempts, 0u);
  auto attempts = (*db)->AttemptsOfRun(runs->front().id);
  ASSERT_TRUE(attempts.ok());
  EXPECT_TRUE(attempts->empty());
  auto infra = (*db)->InfraByBoard();
  ASSERT_TRUE(infra.ok()) << infra.status().ToString();
  ASSERT_EQ(infra->size(), 1u);
  EXPECT_EQ(infra->front().infra_attempts, 1u);
  auto campaigns = (*db)->Campaigns();
  ASSERT_TRUE(campaigns.ok()) << campaigns.status().ToString();
  EXPECT_EQ(campaigns->front().infra_attempts, 1u);
  auto write = (*db)->UpsertBoard({"sim", "sim-0", ""});
  EXPECT_EQ(write.status().code(), Status::Code::kInvalidArgument) << write.status().ToString();
  EXPECT_EQ(*(*db)->SchemaVersion(), 1);
}

TEST(ReadOnlyTest, ANewerSchemaIsRefusedNamingBothVersions) {
  ScratchDir dir;
  const std::string path = dir.File("new.db");
  WriteRuns(path, 1);
  testing::WriteAt(path, 60, std::string("\0\0\0\x63", 4));  // PRAGMA user_version = 99
  for (testing::OpenFn open : testing::BothOpens()) {
    auto db = open(path, Database::Options{});
    ASSERT_FALSE(db.ok());
    const std::string msg = db.status().message();
    EXPECT_NE(msg.find("schema version 99 is newer than this build's " +
                       std::to_string(Database::LatestSchemaVersion())),
              std::string::npos) << msg;
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
  }
}

TEST(ReadOnlyTest, AMissingFileIsNotFoundNamingThePathAndIsNotCreated) {
  ScratchDir dir;
  const std::string path = dir.File("absent.db");
  auto db = Database::OpenReadOnly(path);
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(db.status().code(), Status::Code::kNotFound);
  EXPECT_EQ(db.status().message(), "no database at " + path);
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(ReadOnlyTest, ADirectoryIsAClearErrorBothWays) {
  ScratchDir dir;
  for (testing::OpenFn open : testing::BothOpens()) {
    auto db = open(dir.path(), Database::Options{});
    ASSERT_FALSE(db.ok());
    EXPECT_EQ(db.status().code(), Status::Code::kInvalidArgument);
    EXPECT_EQ(db.status().message(), dir.path() + " is a directory, not a database file");
  }
}

TEST(ReadOnlyTest, AnUnsearchableFolderIsPermissionDeniedNotNotFound) {
  ScratchDir dir;
  std::filesystem::create_directory(dir.File("private"));
  const std::string path = dir.File("private/ctte.db");
  WriteRuns(path, 1);
  std::filesystem::permissions(dir.File("private"), std::filesystem::perms(0));
  const std::string out = AsUnprivileged([&] {
    std::string s;
    for (testing::OpenFn open : testing::BothOpens()) {
      auto db = open(path, Database::Options{});
      s += (db.ok() ? std::string("opened") : db.status().ToString()) + "\n";
    }
    return s;
  });
  std::filesystem::permissions(dir.File("private"), std::filesystem::perms(0755));
  if (out.starts_with("SKIP")) GTEST_SKIP() << out;
  EXPECT_EQ(testing::CountOf(out, "IOError: " + path + ": cannot open: Permission denied"), 2u)
      << out;
}

TEST(ReadOnlyTest, AnEmptyFileIsNotACtteDatabase) {
  ScratchDir dir;
  const std::string path = dir.File("empty.db");
  { std::ofstream touch(path); }
  auto db = Database::OpenReadOnly(path);
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(db.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(db.status().message().find("not a CTTE Lab database"), std::string::npos);
  EXPECT_EQ(std::filesystem::file_size(path), 0u);
}

}  // namespace
}  // namespace ctte::db
