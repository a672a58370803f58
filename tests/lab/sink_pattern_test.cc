#include "lab/sink_pattern.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace ctte::lab {
namespace {

std::vector<bool> Draw(const BackpressureProfile& p, int n) {
  SinkPattern s(p);
  std::vector<bool> v;
  for (int i = 0; i < n; ++i) v.push_back(s.Next());
  return v;
}

TEST(SinkPatternTest, NoneIsAlwaysReady) {
  for (bool b : Draw(BackpressureProfile{}, 100)) EXPECT_TRUE(b);
}

TEST(SinkPatternTest, UniformIsSeededDeterministicAndNearItsRate) {
  BackpressureProfile p{.kind = BackpressureKind::kUniform, .accept_num = 1, .accept_den = 4};
  p.seed = 42;
  const std::vector<bool> a = Draw(p, 20000), b = Draw(p, 20000);
  EXPECT_EQ(a, b);
  const long ready = std::count(a.begin(), a.end(), true);
  EXPECT_NEAR(static_cast<double>(ready) / 20000.0, 0.25, 0.02);
  p.seed = 43;
  EXPECT_NE(Draw(p, 20000), a);
}

TEST(SinkPatternTest, BurstyBlocksStayInsideTheirRanges) {
  BackpressureProfile p{.kind = BackpressureKind::kBursty, .ready_min = 3, .ready_max = 5,
                        .stall_min = 10, .stall_max = 20};
  p.seed = 7;
  const std::vector<bool> v = Draw(p, 5000);
  EXPECT_EQ(v, Draw(p, 5000));
  EXPECT_TRUE(v[0]);  // starts with a ready block
  size_t i = 0;
  std::vector<std::pair<bool, size_t>> runs;
  while (i < v.size()) {
    size_t j = i;
    while (j < v.size() && v[j] == v[i]) ++j;
    runs.emplace_back(v[i], j - i);
    i = j;
  }
  runs.pop_back();  // the last run may be cut off
  for (auto [ready, len] : runs) {
    if (ready) {
      EXPECT_GE(len, 3u);
      EXPECT_LE(len, 5u);
    } else {
      EXPECT_GE(len, 10u);
      EXPECT_LE(len, 20u);
    }
  }
}

// Fill(out, n) draws what n calls of Next() draw, in blocks of any size, for every kind.
TEST(SinkPatternTest, FillMatchesNextInAnyBlocks) {
  BackpressureProfile uniform{.kind = BackpressureKind::kUniform, .accept_num = 2,
                              .accept_den = 3};
  uniform.seed = 5;
  BackpressureProfile bursty{.kind = BackpressureKind::kBursty, .ready_min = 1, .ready_max = 9,
                             .stall_min = 0, .stall_max = 6};
  bursty.seed = 9;
  for (const BackpressureProfile& p : {BackpressureProfile{}, uniform, bursty}) {
    const std::vector<bool> want = Draw(p, 3000);
    for (size_t block : {size_t{1}, size_t{5}, size_t{64}, size_t{3000}}) {
      SinkPattern s(p);
      std::vector<uint8_t> got(want.size());
      for (size_t i = 0; i < got.size(); i += block) {
        s.Fill(got.data() + i, std::min(block, got.size() - i));
      }
      for (size_t i = 0; i < want.size(); ++i) {
        ASSERT_EQ(got[i], want[i] ? 1 : 0) << "kind " << static_cast<int>(p.kind) << " block "
                                           << block << " cycle " << i;
      }
    }
  }
}

}  // namespace
}  // namespace ctte::lab
