#include "runner/shard.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "base/check.h"
#include "runner/campaign_spec.h"
#include "runner/draw.h"

namespace ctte::runner {
namespace {

CampaignSpec LoadShipped(const char* name) {
  auto loaded = LoadCampaignSpec(std::string(CTTE_SOURCE_DIR) + "/campaigns/" + name + ".json");
  CTTE_CHECK(loaded.ok() && loaded->ok(), "shipped campaign does not parse");
  return loaded->spec;
}

TEST(ShardTest, EveryIndexIsInExactlyOneShard) {
  for (uint32_t n = 1; n <= 9; ++n) {
    for (uint64_t i = 0; i < 1000; ++i) {
      int holders = 0;
      for (uint32_t s = 0; s < n; ++s) holders += InShard({s, n}, i) ? 1 : 0;
      ASSERT_EQ(holders, 1) << "index " << i << " of " << n << " shards";
      ASSERT_LT(ShardOf(i, n), n);
    }
  }
}

TEST(ShardTest, ShardsAreBalancedWithinOnePairForEveryRunCount) {
  for (uint32_t n = 1; n <= 9; ++n) {
    for (uint64_t runs = 0; runs <= 300; ++runs) {
      uint64_t lo = UINT64_MAX, hi = 0, total = 0;
      std::vector<uint64_t> all;
      for (uint32_t s = 0; s < n; ++s) {
        const std::vector<uint64_t> mine = ShardIndices({s, n}, runs);
        EXPECT_TRUE(std::is_sorted(mine.begin(), mine.end()));
        for (uint64_t i : mine) EXPECT_TRUE(InShard({s, n}, i)) << i;
        lo = std::min<uint64_t>(lo, mine.size());
        hi = std::max<uint64_t>(hi, mine.size());
        total += mine.size();
        all.insert(all.end(), mine.begin(), mine.end());
      }
      EXPECT_EQ(total, runs);
      std::sort(all.begin(), all.end());
      for (uint64_t i = 0; i < all.size(); ++i) ASSERT_EQ(all[i], i);
      // One unit is an index pair: run counts differ by at most 2, pair counts by at most 1.
      EXPECT_LE(hi - lo, 2u) << runs << " runs over " << n << " shards";
      EXPECT_LE((hi + 1) / 2 - (lo + 1) / 2, 1u) << runs << " runs over " << n << " shards";
    }
  }
}

TEST(ShardTest, OneShardIsTheWholeCampaign) {
  const std::vector<uint64_t> all = ShardIndices({0, 1}, 240);
  ASSERT_EQ(all.size(), 240u);
  for (uint64_t i = 0; i < all.size(); ++i) EXPECT_EQ(all[i], i);
  for (uint64_t i = 0; i < 100000; i += 7) EXPECT_EQ(ShardOf(i, 1), 0u);
}

TEST(ShardTest, DeterminismTwinsRunInTheirOriginalsShard) {
  for (const char* name : {"smoke", "nightly"}) {
    const CampaignSpec spec = LoadShipped(name);
    int twins = 0;
    for (uint64_t i = 0; i < 2000; ++i) {
      const RunConfig c = Draw(spec, i);
      if (!c.twin_of) continue;
      ++twins;
      ASSERT_EQ(*c.twin_of, i - 1) << name << " run " << i;
      for (uint32_t n = 1; n <= 8; ++n) EXPECT_EQ(ShardOf(i, n), ShardOf(i - 1, n)) << i;
    }
    EXPECT_GT(twins, 50) << name;  // the property was exercised
  }
}

TEST(ShardTest, AssignmentIsFixed) {
  // Pinned: changing the function reshuffles every sharded campaign being resumed.
  const uint32_t expected[] = {0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2, 0};
  for (uint64_t i = 0; i < std::size(expected); ++i) EXPECT_EQ(ShardOf(i, 3), expected[i]) << i;
  EXPECT_EQ(ShardIndices({1, 3}, 11), (std::vector<uint64_t>{2, 3, 8, 9}));
  EXPECT_EQ(ShardIndices({2, 3}, 11), (std::vector<uint64_t>{4, 5, 10}));
}

TEST(ShardTest, ParsesOneBasedIOverN) {
  auto s = ParseShard("1/3");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(*s, (ShardSpec{0, 3}));
  s = ParseShard("3/3");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(*s, (ShardSpec{2, 3}));
  s = ParseShard("1/1");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(*s, (ShardSpec{0, 1}));
  EXPECT_EQ(ShardText({2, 3}), "3/3");
}

TEST(ShardTest, BadShardTextIsRefusedNamingTheFlag) {
  for (const char* bad : {"0/3", "4/3", "1/0", "0/0", "", "/", "1/", "/3", "3", "1-3", "a/3",
                          "1/b", "-1/3", "+1/3", " 1/3", "1/3 ", "1/3/5", "1.0/3",
                          "99999999999/3"}) {
    auto s = ParseShard(bad);
    ASSERT_FALSE(s.ok()) << "'" << bad << "' was accepted";
    EXPECT_EQ(s.status().code(), Status::Code::kInvalidArgument);
    EXPECT_EQ(s.status().message(),
              "--shard: expected I/N with 1 <= I <= N, got '" + std::string(bad) + "'");
  }
  auto big = ParseShard("1/5000");
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.status().message().find("--shard: at most"), std::string::npos);
}

}  // namespace
}  // namespace ctte::runner
