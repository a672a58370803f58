#include "db/merge.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "db/database.h"
#include "db/triage_store.h"
#include "tests/db/db_fixture.h"

namespace ctte::db {
namespace {

using testing::Campaign;
using testing::FreshDbPath;
using testing::MakeRun;
using testing::OpenOrDie;

std::vector<VerdictRecord> TwoVerdicts(RunStatus status) {
  return {{"sequence", status == RunStatus::kRed ? Outcome::kFail : Outcome::kPass,
           "dut vs reference", ""},
          {"liveness", Outcome::kPass, "", "{\"cycles\":10}"}};
}

/// A shard database: campaign `name` (seed 7) with the given indices, all green except index
/// 5 (red, stream stored), on board "sim/<board>", created at `created_at`.
void WriteShard(const std::string& path, const std::vector<uint64_t>& indices,
                const std::string& board, const std::string& created_at = "2026-01-01T00:00:00Z",
                const std::string& name = "nightly") {
  auto db = OpenOrDie(path);
  ASSERT_TRUE(db);
  CampaignRecord c = Campaign(name, 7);
  c.created_at = created_at;
  auto cid = db->UpsertCampaign(c);
  ASSERT_TRUE(cid.ok()) << cid.status().ToString();
  ASSERT_TRUE(db->UpsertImage({"ntrace-slim", std::string(64, 'a'), "b1", "{}"}).ok());
  // A board that only this shard has, so board ids differ between shards.
  ASSERT_TRUE(db->UpsertBoard({"sim", "other-" + board, ""}).ok());
  auto bid = db->UpsertBoard({"sim", board, "{\"slot\":0}"});
  ASSERT_TRUE(bid.ok());
  for (uint64_t i : indices) {
    const RunStatus status = i == 5 ? RunStatus::kRed : RunStatus::kGreen;
    RunRecord r = MakeRun(*cid, i, status, i % 2 ? "loop" : "calls", "htm");
    r.board_id = *bid;
    const std::vector<uint8_t> bytes = {1, 2, 3, static_cast<uint8_t>(i)};
    auto id = db->RecordRun(r, TwoVerdicts(status), i == 5 ? &bytes : nullptr);
    ASSERT_TRUE(id.ok()) << id.status().ToString();
  }
}

/// Everything a report or history reads, as text, ids replaced by indices where they are
/// internal (board and replay ids are compared through what they point at).
std::string Snapshot(const std::string& path) {
  auto db = OpenOrDie(path);
  std::string out;
  const auto campaigns = db->Campaigns();
  for (const CampaignSummary& c : *campaigns) {
    out += "campaign " + c.name + " " + std::to_string(c.seed) + " " + c.spec_sha256 + " " +
           c.created_at + " g" + std::to_string(c.green) + " r" + std::to_string(c.red) + "\n";
    const auto runs = db->RunsOfCampaign(c.id);
    for (const RunRow& row : *runs) {
      const RunRecord& r = row.run;
      out += "  run " + std::to_string(r.index) + " " + r.config_json + " " +
             RunStatusName(r.status) + " " + r.stream_sha256 + " " + r.started_at +
             (r.replay_of ? " replay of idx " + std::to_string(db->RunById(*r.replay_of)->run.index)
                          : std::string()) +
             (r.board_id ? " board " + std::to_string(*r.board_id) : std::string(" no board")) +
             "\n";
      const auto verdicts = db->VerdictsOfRun(row.id);
      for (const VerdictRecord& v : *verdicts) {
        out += "    " + v.verdict + " " + OutcomeName(v.outcome) + " " + v.evidence + " " +
               v.metrics_json + "\n";
      }
      auto stream = db->StreamOfRun(row.id);
      if (stream.ok()) out += "    stream " + std::to_string(stream->size()) + " bytes\n";
    }
  }
  return out;
}

TEST(MergeTest, ShardsBecomeOneCampaignRowWithAllIndices) {
  const std::string a = FreshDbPath("a.db"), b = FreshDbPath("b.db"), c = FreshDbPath("c.db");
  const std::string out = FreshDbPath("out.db");
  WriteShard(a, {0, 1, 6, 7}, "board-a", "2026-01-01T00:00:03Z");
  WriteShard(b, {2, 3, 8, 9}, "board-b", "2026-01-01T00:00:01Z");
  WriteShard(c, {4, 5}, "board-c", "2026-01-01T00:00:02Z");
  auto s = MergeDatabases(out, {a, b, c});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_TRUE(s->output_created);
  EXPECT_EQ(s->total.campaigns_added, 1u);
  EXPECT_EQ(s->total.runs_added, 10u);
  EXPECT_EQ(s->total.runs_present, 0u);
  EXPECT_EQ(s->total.images_added, 1u);
  EXPECT_EQ(s->total.boards_added, 6u);

  auto db = OpenOrDie(out);
  auto campaigns = db->Campaigns();
  ASSERT_EQ(campaigns->size(), 1u);
  EXPECT_EQ((*campaigns)[0].green, 9u);
  EXPECT_EQ((*campaigns)[0].red, 1u);
  EXPECT_EQ((*campaigns)[0].created_at, "2026-01-01T00:00:01Z");  // the earliest shard
  auto runs = db->RunsOfCampaign((*campaigns)[0].id);
  ASSERT_EQ(runs->size(), 10u);
  for (uint64_t i = 0; i < 10; ++i) {
    const RunRow& row = (*runs)[i];
    EXPECT_EQ(row.run.index, i);
    EXPECT_EQ(row.run.seed, 0x1000 + i);
    EXPECT_EQ(db->VerdictsOfRun(row.id)->size(), 2u);
    EXPECT_EQ(db->StreamOfRun(row.id).ok(), i == 5);
  }
  // Board ids point at the same (kind, serial) as in the shard.
  auto red = db->RedRuns("nightly");
  ASSERT_EQ(red->size(), 1u);
  auto again = db->UpsertBoard({"sim", "board-c", ""});
  EXPECT_EQ((*red)[0].run.board_id, *again);
  EXPECT_EQ(*db->StreamOfRun((*red)[0].id), (std::vector<uint8_t>{1, 2, 3, 5}));
  auto counts = db->OutcomeCounts("nightly");
  ASSERT_EQ(counts->size(), 2u);
}

TEST(MergeTest, MergingTheSameInputsAgainChangesNothing) {
  const std::string a = FreshDbPath("a.db"), b = FreshDbPath("b.db"), out = FreshDbPath("out.db");
  WriteShard(a, {0, 1, 4, 5}, "board-a");
  WriteShard(b, {2, 3}, "board-b");
  ASSERT_TRUE(MergeDatabases(out, {a, b}).ok());
  const std::string first = Snapshot(out);
  auto s = MergeDatabases(out, {a, b, a});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_FALSE(s->output_created);
  EXPECT_EQ(s->total.runs_added, 0u);
  EXPECT_EQ(s->total.runs_present, 10u);
  EXPECT_EQ(s->total.campaigns_added + s->total.images_added + s->total.boards_added, 0u);
  EXPECT_EQ(Snapshot(out), first);
}

TEST(MergeTest, AddsOnlyTheIndicesTheOutputLacks) {
  const std::string out = FreshDbPath("out.db"), in = FreshDbPath("in.db");
  WriteShard(out, {0, 1, 2, 3}, "board-a");
  WriteShard(in, {2, 3, 4, 5, 6}, "board-b");
  auto s = MergeDatabases(out, {in});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->total.runs_added, 3u);
  EXPECT_EQ(s->total.runs_present, 2u);
  EXPECT_EQ(s->total.campaigns_added, 0u);
  EXPECT_TRUE(s->inputs[0].differing_results.empty());
  auto db = OpenOrDie(out);
  EXPECT_EQ(db->RunsOfCampaign(db->Campaigns()->at(0).id)->size(), 7u);
}

TEST(MergeTest, ConflictingConfigIsRefusedNamingCampaignIndexAndBothFiles) {
  const std::string a = FreshDbPath("a.db"), b = FreshDbPath("b.db"), out = FreshDbPath("out.db");
  WriteShard(a, {0, 1, 2, 3}, "board-a");
  {
    auto db = OpenOrDie(b);
    auto cid = db->UpsertCampaign(Campaign("nightly", 7));
    RunRecord r = MakeRun(*cid, 3, RunStatus::kGreen, "sort", "btm");  // another config
    ASSERT_TRUE(db->RecordRun(r, {}).ok());
  }
  WriteShard(out, {8}, "board-o");
  const std::string before = Snapshot(out);
  auto s = MergeDatabases(out, {a, b});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Status::Code::kInvalidArgument);
  const std::string& msg = s.status().message();
  EXPECT_NE(msg.find("campaign nightly"), std::string::npos) << msg;
  EXPECT_NE(msg.find("index 3"), std::string::npos) << msg;
  EXPECT_NE(msg.find(a), std::string::npos) << msg;
  EXPECT_NE(msg.find(b), std::string::npos) << msg;
  EXPECT_NE(msg.find("config_json differs"), std::string::npos) << msg;
  EXPECT_EQ(Snapshot(out), before);  // run 0..2 of a.db were merged, then rolled back
}

TEST(MergeTest, ARunSeedConflictWithTheOutputNamesTheOutput) {
  const std::string in = FreshDbPath("in.db"), out = FreshDbPath("out.db");
  WriteShard(out, {0}, "board-o");
  {
    auto db = OpenOrDie(in);
    auto cid = db->UpsertCampaign(Campaign("nightly", 7));
    RunRecord r = MakeRun(*cid, 0, RunStatus::kGreen, "calls", "htm");
    r.seed = 99;
    ASSERT_TRUE(db->RecordRun(r, {}).ok());
  }
  auto s = MergeDatabases(out, {in});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("index 0: " + in + " and " + out + " disagree"),
            std::string::npos)
      << s.status().message();
  EXPECT_NE(s.status().message().find("run seed differs"), std::string::npos);
}

TEST(MergeTest, AFailedMergeIntoANewOutputLeavesNoFile) {
  const std::string a = FreshDbPath("a.db"), b = FreshDbPath("b.db"), out = FreshDbPath("out.db");
  WriteShard(a, {0, 1}, "board-a");
  {
    auto db = OpenOrDie(b);
    auto cid = db->UpsertCampaign(Campaign("nightly", 7));
    ASSERT_TRUE(db->RecordRun(MakeRun(*cid, 1, RunStatus::kGreen, "sort", "btm"), {}).ok());
  }
  ASSERT_FALSE(MergeDatabases(out, {a, b}).ok());
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_FALSE(std::filesystem::exists(out + "-wal"));
}

TEST(MergeTest, ASpecChangedUnderTheSameNameAndSeedIsRefusedUnlessKeptAsVersions) {
  const std::string a = FreshDbPath("a.db"), b = FreshDbPath("b.db"), out = FreshDbPath("out.db");
  WriteShard(a, {0, 1}, "board-a");
  {
    auto db = OpenOrDie(b);
    CampaignRecord c = Campaign("nightly", 7);
    c.spec_json = "{\"name\":\"nightly\",\"seed\":7,\"edited\":true}";
    auto cid = db->UpsertCampaign(c);
    ASSERT_TRUE(db->RecordRun(MakeRun(*cid, 1, RunStatus::kGreen, "loop", "htm"), {}).ok());
  }
  auto s = MergeDatabases(out, {a, b});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("campaign nightly (seed 0x0000000000000007) index 1: " +
                                      b + " ran it from a spec with SHA-256"),
            std::string::npos)
      << s.status().message();
  EXPECT_NE(s.status().message().find(a), std::string::npos);

  MergeOptions keep;
  keep.keep_spec_versions = true;
  auto kept = MergeDatabases(out, {a, b}, keep);
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  EXPECT_EQ(OpenOrDie(out)->Campaigns()->size(), 2u);
}

TEST(MergeTest, ReplaysPointAtTheMergedRunAndAreNotDuplicated) {
  const std::string a = FreshDbPath("a.db"), b = FreshDbPath("b.db"), out = FreshDbPath("out.db");
  WriteShard(a, {0, 1}, "board-a");
  WriteShard(b, {4, 5}, "board-b");
  {
    auto db = OpenOrDie(b);
    const RunRow original = db->RedRuns()->at(0);  // index 5
    RunRecord r = original.run;
    r.replay_of = original.id;
    r.started_at = "2026-02-01T00:00:00Z";
    ASSERT_TRUE(db->RecordRun(r, TwoVerdicts(RunStatus::kRed)).ok());
    r.replay_of = original.id;  // a second replay of the same run, later
    r.started_at = "2026-02-02T00:00:00Z";
    ASSERT_TRUE(db->RecordRun(r, {}).ok());
  }
  // b first would give its runs the same ids as in b; a first shifts them.
  auto s = MergeDatabases(out, {a, b});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->total.replays_added, 2u);
  auto again = MergeDatabases(out, {b});
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->total.replays_added, 0u);
  EXPECT_EQ(again->total.replays_present, 2u);

  auto db = OpenOrDie(out);
  std::vector<RunRow> replays;
  int64_t original_id = 0;
  const auto runs = db->RunsOfCampaign(db->Campaigns()->at(0).id);
  for (const RunRow& row : *runs) {
    if (row.run.replay_of) replays.push_back(row);
    else if (row.run.index == 5) original_id = row.id;
  }
  ASSERT_EQ(replays.size(), 2u);
  for (const RunRow& r : replays) {
    EXPECT_EQ(r.run.replay_of, original_id);
    EXPECT_EQ(r.run.index, 5u);
  }
  EXPECT_EQ(db->VerdictsOfRun(replays[0].id)->size(), 2u);
}

TEST(MergeTest, AFinishedRunCompletesAPlannedOne) {
  const std::string in = FreshDbPath("in.db"), out = FreshDbPath("out.db");
  {
    auto db = OpenOrDie(out);
    auto cid = db->UpsertCampaign(Campaign("nightly", 7));
    RunRecord planned = MakeRun(*cid, 5, RunStatus::kPlanned, "loop", "htm");
    ASSERT_TRUE(db->PlanRuns({planned}).ok());
  }
  WriteShard(in, {5}, "board-a");
  auto s = MergeDatabases(out, {in});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->total.runs_added, 1u);
  auto db = OpenOrDie(out);
  auto runs = db->RunsOfCampaign(db->Campaigns()->at(0).id);
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ(runs->at(0).run.status, RunStatus::kRed);
  EXPECT_TRUE(db->StreamOfRun(runs->at(0).id).ok());
}

// A shard whose run 4 was infra, then the same shard re-run with --retry-infra (green), merged
// in that order: the green run replaces the infra row; merged the other way round, the infra
// input leaves the green row alone. Neither is a differing result.
TEST(MergeTest, AJudgedRunReplacesAnInfraOneAndAnInfraOneNeverReplacesAJudgedOne) {
  const std::string infra = FreshDbPath("infra.db"), green = FreshDbPath("green.db");
  {
    auto db = OpenOrDie(infra);
    auto cid = db->UpsertCampaign(Campaign("nightly", 7));
    RunRecord r = MakeRun(*cid, 4, RunStatus::kInfra, "calls", "htm");
    ASSERT_TRUE(db->RecordRun(r, {}).ok());
  }
  WriteShard(green, {4}, "board-a");
  for (const bool infra_first : {true, false}) {
    const std::string out = FreshDbPath(infra_first ? "out1.db" : "out2.db");
    auto s = MergeDatabases(out, infra_first ? std::vector<std::string>{infra, green}
                                             : std::vector<std::string>{green, infra});
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    for (const MergeInputSummary& in : s->inputs) EXPECT_TRUE(in.differing_results.empty());
    auto db = OpenOrDie(out);
    auto runs = db->RunsOfCampaign(db->Campaigns()->at(0).id);
    ASSERT_EQ(runs->size(), 1u);
    EXPECT_EQ(runs->at(0).run.status, RunStatus::kGreen) << "infra first: " << infra_first;
    EXPECT_EQ(db->VerdictsOfRun(runs->at(0).id)->size(), 2u);
  }
}

TEST(MergeTest, DifferingResultsForTheSameRunAreRefusedUnlessKeptAndListed) {
  const std::string in = FreshDbPath("in.db"), out = FreshDbPath("out.db");
  WriteShard(out, {4}, "board-a");
  {
    auto db = OpenOrDie(in);
    auto cid = db->UpsertCampaign(Campaign("nightly", 7));
    RunRecord r = MakeRun(*cid, 4, RunStatus::kRed, "calls", "htm");
    r.stream_sha256 = std::string(64, 'c');
    ASSERT_TRUE(db->RecordRun(r, {}).ok());
  }
  // A red copy of a green run: the merge is refused, naming both files, and changes nothing.
  const std::string before = Snapshot(out);
  auto refused = MergeDatabases(out, {in});
  ASSERT_FALSE(refused.ok());
  for (const std::string& want : {std::string("index 4"), in, out, std::string("disagree"),
                                  std::string("--keep-differing")}) {
    EXPECT_NE(refused.status().message().find(want), std::string::npos)
        << want << ": " << refused.status().ToString();
  }
  EXPECT_EQ(Snapshot(out), before);
  MergeOptions keep;
  keep.keep_differing = true;
  auto s = MergeDatabases(out, {in}, keep);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_EQ(s->inputs[0].differing_results.size(), 1u);
  EXPECT_NE(s->inputs[0].differing_results[0].find("index 4"), std::string::npos);
  auto db = OpenOrDie(out);
  EXPECT_EQ(db->RunsOfCampaign(db->Campaigns()->at(0).id)->at(0).run.status, RunStatus::kGreen);
}

// A bisection recorded in a shard after its runs were merged travels on a second merge (with
// its legs and their runs), once: the run is already present, so only the bisection is new.
TEST(MergeTest, ABisectionOfARunAlreadyPresentIsCarriedOnce) {
  const std::string in = FreshDbPath("in.db"), out = FreshDbPath("out.db");
  WriteShard(in, {4, 5}, "board-a");
  ASSERT_TRUE(MergeDatabases(out, {in}).ok());
  {
    auto db = OpenOrDie(in);
    auto rows = db->RunsOfCampaign(db->Campaigns()->at(0).id);
    ASSERT_TRUE(rows.ok());
    BisectionRecord b;
    b.run_id = rows->at(1).id;  // index 5, the red run
    b.kind = "bisect";
    b.created_at = "2026-01-02T00:00:00Z";
    b.repeats = 2;
    b.verdict = "culprit";
    b.culprits = "mode";
    BisectionLegRecord leg;
    leg.kind = "original";
    leg.config_json = "{}";
    leg.verdict = "reference";
    leg.runs.push_back({0, 7, "red", "decode_integrity", "", "sim-1", 12});
    leg.runs.push_back({1, 8, "red", "decode_integrity", "", "sim-1", 13});
    b.legs.push_back(leg);
    ASSERT_TRUE(TriageStore::RecordBisection(*db, b).ok());
  }
  for (int merge = 0; merge < 2; ++merge) {
    auto s = MergeDatabases(out, {in});
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    EXPECT_EQ(s->total.runs_added, 0u);
    EXPECT_EQ(s->total.bisections_added, merge == 0 ? 1u : 0u) << "merge " << merge;
  }
  auto db = OpenOrDie(out);
  auto rows = db->RunsOfCampaign(db->Campaigns()->at(0).id);
  ASSERT_TRUE(rows.ok());
  auto all = TriageStore::BisectionsOfRun(*db, rows->at(1).id);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ(all->at(0).culprits, "mode");
  ASSERT_EQ(all->at(0).legs.size(), 1u);
  EXPECT_EQ(all->at(0).legs[0].runs.size(), 2u);
}

TEST(MergeTest, TheOutputCannotBeAnInput) {
  const std::string a = FreshDbPath("a.db");
  WriteShard(a, {0}, "board-a");
  const std::string before = Snapshot(a);
  const std::filesystem::path p(a);
  const std::string other_spelling =
      (p.parent_path() / "." / p.filename()).string();
  for (const std::string& out : {a, other_spelling}) {
    auto s = MergeDatabases(out, {a});
    ASSERT_FALSE(s.ok()) << out;
    EXPECT_NE(s.status().message().find("is also an input"), std::string::npos);
  }
  EXPECT_EQ(Snapshot(a), before);
}

TEST(MergeTest, ADamagedInputIsRefusedWithItsPath) {
  const std::string good = FreshDbPath("good.db"), out = FreshDbPath("out.db");
  WriteShard(good, {0, 1}, "board-a");
  const std::string garbage = FreshDbPath("garbage.db");
  std::ofstream(garbage) << "this is not a database, just text that is long enough to look\n";
  auto s = MergeDatabases(out, {good, garbage});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Status::Code::kCorruption);
  EXPECT_NE(s.status().message().find(garbage), std::string::npos) << s.status().message();
  EXPECT_FALSE(std::filesystem::exists(out));

  // A real database with a page overwritten in the middle.
  const std::string torn = FreshDbPath("torn.db");
  std::vector<uint64_t> many;
  for (uint64_t i = 0; i < 400; ++i) many.push_back(i);
  WriteShard(torn, many, "board-t");
  const auto size = std::filesystem::file_size(torn);
  ASSERT_GT(size, 8 * 4096u);
  {
    std::fstream f(torn, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(size / 2));
    const std::string junk(3000, '\x5a');
    f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
  }
  s = MergeDatabases(out, {good, torn});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Status::Code::kCorruption);
  EXPECT_NE(s.status().message().find("input " + torn), std::string::npos)
      << s.status().message();
  EXPECT_FALSE(std::filesystem::exists(out));

  // A missing input, and a database file that is not a lab database.
  s = MergeDatabases(out, {FreshDbPath("missing.db")});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("missing.db"), std::string::npos);
}

}  // namespace
}  // namespace ctte::db
