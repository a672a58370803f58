// Damaged files: PRAGMA quick_check before any write session, and clear errors (never a crash or
// partial output) when reading. Each case damages a copy of a real database file.
#include <gtest/gtest.h>

#include <filesystem>

#include "db/database.h"
#include "tests/db/db_files.h"
#include "tests/db/db_fixture.h"

namespace ctte::db {
namespace {

using testing::Campaign;
using testing::MakeRun;
using testing::ReadAll;
using testing::ScratchDir;

class IntegrityTest : public ::testing::Test {
 protected:
  // A healthy database of 400 runs (many pages), closed, and a copy to damage.
  void SetUp() override {
    good_ = dir_.File("good.db");
    {
      auto db = Database::Open(good_);
      ASSERT_TRUE(db.ok()) << db.status().ToString();
      const int64_t c = *(*db)->UpsertCampaign(Campaign("smoke", 1));
      std::vector<RunRecord> planned;
      for (uint64_t i = 0; i < 400; ++i) {
        RunRecord r = MakeRun(c, i, RunStatus::kPlanned, "loop", "htm");
        r.config_json = "{\"axes\":{\"workload\":\"loop\"},\"pad\":\"" +
                        std::string(200, 'p') + "\"}";
        planned.push_back(r);
      }
      ASSERT_TRUE((*db)->PlanRuns(planned).ok());
      std::vector<VerdictRecord> v = {{"decode_integrity", Outcome::kPass, "ok", ""}};
      ASSERT_TRUE((*db)->RecordRun(MakeRun(c, 0, RunStatus::kGreen, "loop", "htm"), v).ok());
    }
    bad_ = dir_.File("bad.db");
    std::filesystem::copy_file(good_, bad_);
  }

  // Every way in refuses the file with a message naming it, and leaves its bytes alone.
  void ExpectRefused(const std::string& detail) {
    const std::string before = ReadAll(bad_);
    auto w = Database::Open(bad_);
    ASSERT_FALSE(w.ok()) << "opened a damaged file for writing";
    EXPECT_EQ(w.status().code(), Status::Code::kCorruption) << w.status().ToString();
    const std::string& msg = w.status().message();
    EXPECT_TRUE(msg.starts_with(bad_ + ": database is damaged: ")) << msg;
    EXPECT_TRUE(msg.ends_with("; it was not modified")) << msg;
    EXPECT_NE(msg.find(detail), std::string::npos) << msg;
    // A read-only open asked to check refuses the file as Open() does.
    auto r = Database::OpenReadOnly(bad_, Database::Options{.check_integrity_read_only = true});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), Status::Code::kCorruption) << r.status().ToString();
    EXPECT_TRUE(r.status().message().starts_with(bad_ + ": database is damaged: "))
        << r.status().message();
    // By default it does not read every page (history at scale): the file is refused at open,
    // or the first query that reads a damaged page fails, naming the file.
    auto d = Database::OpenReadOnly(bad_);
    if (d.ok()) {
      auto runs = (*d)->RunsOfCampaign(1);
      auto outcomes = (*d)->OutcomeCounts();
      const Status& st = !runs.ok() ? runs.status() : outcomes.status();
      ASSERT_FALSE(st.ok()) << "every read of the damaged file succeeded";
      EXPECT_EQ(st.code(), Status::Code::kCorruption) << st.ToString();
      EXPECT_NE(st.message().find(": database is damaged: "), std::string::npos) << st.message();
      EXPECT_NE(st.message().find("bad.db"), std::string::npos) << st.message();
    } else {
      EXPECT_EQ(d.status().code(), Status::Code::kCorruption) << d.status().ToString();
      EXPECT_TRUE(d.status().message().starts_with(bad_ + ": database is damaged: "))
          << d.status().message();
    }
    EXPECT_EQ(ReadAll(bad_), before) << "the damaged file was modified";
  }

  ScratchDir dir_;
  std::string good_, bad_;
};

TEST_F(IntegrityTest, AHealthyFilePassesTheCheck) {
  auto db = Database::Open(good_);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  EXPECT_TRUE((*db)->CheckIntegrity().ok());
}

TEST_F(IntegrityTest, AGarbageHeaderIsRefused) {
  testing::WriteAt(bad_, 0, "this is not an SQLite file, it is a text file of garbage......");
  ExpectRefused("not a database");
}

TEST_F(IntegrityTest, ATruncatedFileIsRefused) {
  std::filesystem::resize_file(bad_, std::filesystem::file_size(bad_) / 2);
  ExpectRefused("");
}

TEST_F(IntegrityTest, PagesOverwrittenInTheMiddleAreRefused) {
  const auto size = static_cast<std::streamoff>(std::filesystem::file_size(bad_));
  testing::WriteAt(bad_, size / 2 / 4096 * 4096, std::string(3 * 4096, '\x5a'));
  ExpectRefused("");
}

TEST_F(IntegrityTest, AGarbageFileIsRefusedEvenWithoutTheCheck) {
  std::ofstream(bad_, std::ios::binary | std::ios::trunc) << std::string(8192, '\x07');
  for (testing::OpenFn open : testing::BothOpens()) {
    auto db = open(bad_, Database::Options{.check_integrity = false});
    ASSERT_FALSE(db.ok());
    EXPECT_EQ(db.status().code(), Status::Code::kCorruption) << db.status().ToString();
    EXPECT_NE(db.status().message().find(bad_ + ": database is damaged: file is not a database"),
              std::string::npos) << db.status().ToString();
  }
}

TEST_F(IntegrityTest, ReadingADamagedFileUncheckedFailsNeverCrashes) {
  const auto size = static_cast<std::streamoff>(std::filesystem::file_size(bad_));
  testing::WriteAt(bad_, size / 2 / 4096 * 4096, std::string(3 * 4096, '\x5a'));
  auto db = Database::OpenReadOnly(bad_, Database::Options{.check_integrity = false});
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  auto runs = (*db)->RunsOfCampaign(1);
  auto outcomes = (*db)->OutcomeCounts();
  // Whatever a damaged page holds, each read either fails with a Status or returns rows.
  EXPECT_TRUE(!runs.ok() || !outcomes.ok() || (*db)->CheckIntegrity().code() ==
                                                 Status::Code::kCorruption);
}

}  // namespace
}  // namespace ctte::db
