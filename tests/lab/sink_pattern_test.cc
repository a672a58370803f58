#include "lab/sink_pattern.h"

#include <gtest/gtest.h>

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
  Result<BackpressureProfile> p = ParseBackpressure("uniform:0.25");
  ASSERT_TRUE(p.ok());
  p->seed = 42;
  const std::vector<bool> a = Draw(*p, 20000), b = Draw(*p, 20000);
  EXPECT_EQ(a, b);
  const long ready = std::count(a.begin(), a.end(), true);
  EXPECT_NEAR(static_cast<double>(ready) / 20000.0, 0.25, 0.02);
  p->seed = 43;
  EXPECT_NE(Draw(*p, 20000), a);
}

TEST(SinkPatternTest, BurstyBlocksStayInsideTheirRanges) {
  Result<BackpressureProfile> p = ParseBackpressure("bursty:3-5:10-20");
  ASSERT_TRUE(p.ok());
  p->seed = 7;
  const std::vector<bool> v = Draw(*p, 5000);
  EXPECT_EQ(v, Draw(*p, 5000));
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

TEST(SinkPatternTest, BadSpecsAreRejectedWithTheSpecNamed) {
  for (const char* bad : {"uniform:0", "uniform:1.5", "uniform:x", "bursty:0-3:1-2",
                          "bursty:5-3:1-2", "bursty:3-5", "random"}) {
    Result<BackpressureProfile> p = ParseBackpressure(bad);
    ASSERT_FALSE(p.ok()) << bad;
    EXPECT_NE(p.status().message().find(bad), std::string::npos) << p.status().message();
  }
  Result<BackpressureProfile> p = ParseBackpressure("bursty:4-4:0-0");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(FormatBackpressure(*p), "bursty:4-4:0-0");
}

}  // namespace
}  // namespace ctte::lab
