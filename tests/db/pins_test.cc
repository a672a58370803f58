// Content pins (run_pins, the content-pins migration) and the artifact store (db/artifacts.h):
// pins are written with their run and read back; an older file migrates and its runs have none;
// the store keeps files once by digest, refuses a file whose digest is not the one named, and gc
// removes exactly what no run refers to.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/files.h"
#include "base/sha256.h"
#include "db/artifacts.h"
#include "db/database.h"
#include "db/schema.h"
#include "tests/db/db_files.h"
#include "tests/db/db_fixture.h"

namespace ctte::db {
namespace {

using testing::Campaign;
using testing::MakeRun;
using testing::ScratchDir;

RunPins Pins(const std::string& sha) {
  return RunPins{"mine", "/labs/x/mine.elf", sha, "", "0.1.0-abc (abc)"};
}

TEST(PinsTest, PinsAreStoredWithTheRunAndReadBack) {
  ScratchDir dir;
  auto db = Database::Open(dir.File("p.db"));
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  const int64_t c = *(*db)->UpsertCampaign(Campaign("c", 1));
  RunRecord r = MakeRun(c, 0, RunStatus::kGreen, "mine", "htm");
  r.pins = Pins(std::string(64, 'c'));
  const int64_t id = *(*db)->RecordRun(r, {});
  RunRecord plain = MakeRun(c, 1, RunStatus::kGreen, "loop", "htm");
  const int64_t id2 = *(*db)->RecordRun(plain, {});
  auto p = (*db)->PinsOfRun(id);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  ASSERT_TRUE(p->has_value());
  EXPECT_EQ(**p, r.pins);
  auto none = (*db)->PinsOfRun(id2);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  // Referenced digests: the image of both runs and the pinned ELF, once each.
  auto refs = (*db)->ReferencedDigests();
  ASSERT_TRUE(refs.ok());
  EXPECT_EQ(*refs, (std::vector<std::string>{std::string(64, 'a'), std::string(64, 'c')}));
}

TEST(PinsTest, ABadDigestIsRefusedWithTheRun_bad) {
  ScratchDir dir;
  auto db = Database::Open(dir.File("p.db"));
  ASSERT_TRUE(db.ok());
  const int64_t c = *(*db)->UpsertCampaign(Campaign("c", 1));
  RunRecord r = MakeRun(c, 0, RunStatus::kGreen, "mine", "htm");
  r.pins = Pins("not-a-digest");
  EXPECT_FALSE((*db)->RecordRun(r, {}).ok());
  auto runs = (*db)->RunsOfCampaign(c);
  ASSERT_TRUE(runs.ok());
  EXPECT_TRUE(runs->empty()) << "the run and its pins are one transaction";
}

TEST(PinsTest, AnOlderFileMigratesAndItsRunsHaveNoPins) {
  ScratchDir dir;
  const std::string path = dir.File("old.db");
  int64_t id = 0;
  {
    auto db = Database::TEST_OpenAtVersion(path, ContentPinsSchemaVersion() - 1);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    const int64_t c = *(*db)->UpsertCampaign(Campaign("c", 1));
    RunRecord r = MakeRun(c, 0, RunStatus::kGreen, "loop", "htm");
    r.pins = Pins(std::string(64, 'c'));  // no table yet: not stored, not an error
    id = *(*db)->RecordRun(r, {});
    auto p = (*db)->PinsOfRun(id);
    ASSERT_TRUE(p.ok());
    EXPECT_FALSE(p->has_value());
  }
  auto db = Database::Open(path);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  EXPECT_EQ(*(*db)->SchemaVersion(), Database::LatestSchemaVersion());
  auto p = (*db)->PinsOfRun(id);
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE(p->has_value());
}

TEST(ArtifactStoreTest, FilesAreKeptOnceByDigestAndGcRemovesTheUnreferenced) {
  ScratchDir dir;
  const std::string a = dir.File("a.elf"), b = dir.File("b.so");
  std::ofstream(a) << "elf bytes";
  std::ofstream(b) << "image bytes";
  ArtifactStore store(dir.File("store"));
  Result<std::string> da = store.PutFile(a);
  ASSERT_TRUE(da.ok()) << da.status().ToString();
  EXPECT_EQ(*da, *Sha256File(a));
  EXPECT_EQ(store.PathOf(*da), dir.File("store") + "/sha256/" + da->substr(0, 2) + "/" + *da);
  EXPECT_TRUE(store.Has(*da));
  EXPECT_EQ(*ReadFileText(store.PathOf(*da)), "elf bytes");
  EXPECT_TRUE(store.PutFile(a).ok());  // again: kept once
  const std::string db_sha = *Sha256File(b);
  ASSERT_TRUE(store.PutImage(b, db_sha, R"({"name": "x", "image": "x.so", "sha256": ")" + db_sha +
                                            "\"}")
                  .ok());
  EXPECT_TRUE(store.HasImage(db_sha));
  EXPECT_NE(ReadFileText(store.ManifestPathOf(db_sha))->find("\"image\": \"" + db_sha + "\""),
            std::string::npos);
  EXPECT_EQ(*store.Digests(), (std::vector<std::string>{std::min(*da, db_sha),
                                                        std::max(*da, db_sha)}));

  // gc keeps what is referenced; a dry run removes nothing.
  Result<GcResult> dry = store.Gc({db_sha}, true);
  ASSERT_TRUE(dry.ok());
  EXPECT_EQ(dry->removed, 1u);
  EXPECT_TRUE(store.Has(*da));
  Result<GcResult> gc = store.Gc({db_sha}, false);
  ASSERT_TRUE(gc.ok());
  EXPECT_EQ(gc->removed_digests, std::vector<std::string>{*da});
  EXPECT_EQ(gc->kept, 1u);
  EXPECT_FALSE(store.Has(*da));
  EXPECT_TRUE(store.HasImage(db_sha));

  // CopyFrom carries the named artifacts (bytes and manifest) into another store.
  ArtifactStore other(dir.File("other"));
  Result<uint64_t> copied = other.CopyFrom(store, {db_sha, *da});
  ASSERT_TRUE(copied.ok());
  EXPECT_EQ(*copied, 2u);
  EXPECT_TRUE(other.HasImage(db_sha));
  EXPECT_FALSE(other.Has(*da));
}

TEST(ArtifactStoreTest, AFileWhoseDigestIsNotTheOneNamedIsNotStored_bad) {
  ScratchDir dir;
  const std::string a = dir.File("a.elf");
  std::ofstream(a) << "rebuilt";
  ArtifactStore store(dir.File("store"));
  Result<std::string> r = store.PutFile(a, std::string(64, 'e'));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(*Sha256File(a)), std::string::npos);
  EXPECT_NE(r.status().message().find(std::string(64, 'e')), std::string::npos);
  EXPECT_TRUE(store.Digests()->empty());
}

}  // namespace
}  // namespace ctte::db
