// The feature table (runner/feature_table.h): every capability and enable field of the register
// map has its row, and the deploy and WARL checks it drives refuse a design that disagrees with
// its manifest, naming the image, the register, the bit and the feature (docs/board-protocol.md,
// "Feature capabilities at deploy"). Host-only: register values are given, not read.
#include "runner/feature_table.h"

#include <gtest/gtest.h>

#include <string>

#include "oracle/features.h"
#include "regmap/registers.h"

namespace ctte::runner {
namespace {

constexpr uint32_t kMode3 = 3u << reg::kFeatImplicitReturnModeLsb;
constexpr uint32_t kFullCaps = reg::kFeatureCapImplicitReturn | reg::kFeatureCapRepeatedHistory |
                               reg::kFeatureCapRepeatBranch |
                               (16u << reg::kFeatureCapReturnStackDepthLsb);

lab::ImageManifest Slim() {
  lab::ImageManifest m;
  m.name = "ntrace-slim";
  return m;
}

lab::ImageManifest Full() {
  lab::ImageManifest m;
  m.name = "ntrace-full";
  m.features = {"implicit-return", "repeated-history", "repeat-branch"};
  m.return_stack_depth = 16;
  m.feature_caps = kFullCaps;
  return m;
}

std::string Refusal(const lab::ImageManifest& m, uint32_t caps, uint32_t feat) {
  const Status s = CheckDeployedFeatures(m, caps, feat);
  return s.ok() ? "ok" : s.message();
}

uint32_t Mask(const reg::FieldInfo& f) {
  return static_cast<uint32_t>(((uint64_t{1} << (f.msb - f.lsb + 1)) - 1) << f.lsb);
}

// A feature added to regmap.json without its row fails here: every one-bit ctteFeatureCaps field
// is one row's cap bit, every one-bit trTeInstFeatures field one row's enable, every wider
// trTeInstFeatures field one row's read-only parameter.
TEST(FeatureTableTest, EveryFeatureFieldOfTheRegisterMapHasItsRow) {
  int caps_fields = 0;
  for (const reg::FieldInfo& f : reg::kFields) {
    const std::string r = f.reg;
    if (r != "ctteFeatureCaps" && r != "trTeInstFeatures") continue;
    const uint32_t mask = Mask(f);
    if (r == "ctteFeatureCaps" && f.msb != f.lsb) continue;  // the return-stack depth
    int rows = 0;
    for (const FeatureRow& row : FeatureTable()) {
      const uint32_t bits = r == "ctteFeatureCaps" ? row.cap_bit
                            : f.msb == f.lsb       ? row.enable_bits
                                                   : row.param_mask;
      if ((bits & mask) == mask) ++rows;
    }
    EXPECT_EQ(rows, 1) << r << "." << f.name << " (bits " << int(f.msb) << ":" << int(f.lsb)
                       << ") must belong to exactly one row of runner/feature_table.cc";
    caps_fields += r == "ctteFeatureCaps";
  }
  EXPECT_EQ(caps_fields, static_cast<int>(FeatureTable().size()));
}

// Each row is wired to its name: parsing the name asks for that row's feature and no other.
TEST(FeatureTableTest, EachRowsNameRequestsItsOwnEnablesOnly) {
  for (const FeatureRow& row : FeatureTable()) {
    EXPECT_EQ(__builtin_popcount(row.cap_bit), 1) << row.name;
    Result<oracle::FeatureSet> f = oracle::ParseFeatures(row.name, "test", 16);
    ASSERT_TRUE(f.ok()) << f.status().ToString();
    EXPECT_EQ(FeatureEnables(*f), row.enable_bits) << row.name;
    EXPECT_EQ(FindFeature(row.name), &row);
  }
  EXPECT_EQ(FeatureEnables({}), 0u);
  EXPECT_EQ(FindFeature("sequential-jumps"), nullptr);
}

TEST(FeatureTableTest, HonestImagesPass) {
  EXPECT_EQ(Refusal(Slim(), 0, 0), "ok");
  EXPECT_EQ(Refusal(Full(), kFullCaps, kMode3), "ok");
  // The enables a previous run left on are not a disagreement.
  EXPECT_EQ(Refusal(Full(), kFullCaps, kMode3 | reg::kFeatEnImplicitReturn), "ok");
}

TEST(FeatureTableTest, AManifestThatClaimsAFeatureTheDesignLacksIsRefused_bad) {
  lab::ImageManifest m = Slim();
  m.features = {"implicit-return"};
  EXPECT_EQ(Refusal(m, 0, 0),
            "image ntrace-slim: the manifest lists feature implicit-return, but ctteFeatureCaps "
            "(0x12c) bit 0 reads 0: the design does not compile it");
}

TEST(FeatureTableTest, ACapBitTheManifestDoesNotListIsRefused_bad) {
  lab::ImageManifest m = Full();
  m.features = {"implicit-return", "repeat-branch"};
  EXPECT_EQ(Refusal(m, kFullCaps, kMode3),
            "image ntrace-full: ctteFeatureCaps (0x12c) bit 4 (repeated-history) reads 1, but "
            "the manifest's features do not list repeated-history");
}

TEST(FeatureTableTest, ADepthAValueOrAFieldThatDiffersIsRefused_bad) {
  lab::ImageManifest m = Full();
  m.return_stack_depth = 8;
  EXPECT_EQ(Refusal(m, kFullCaps, kMode3),
            "image ntrace-full: ctteFeatureCaps (0x12c) bits 13:8 (return stack depth) read 16, "
            "manifest return_stack_depth 8");
  m = Full();
  m.feature_caps = kFullCaps & ~reg::kFeatureCapRepeatBranch;
  EXPECT_EQ(Refusal(m, kFullCaps, kMode3),
            "image ntrace-full: ctteFeatureCaps (0x12c) reads 0x1031, manifest feature_caps 0x1011");
  EXPECT_EQ(Refusal(Full(), kFullCaps, 0),
            "image ntrace-full: trTeInstFeatures (0x8) bits 7:6 (implicit-return) read 0x0, "
            "expected 0x3 (compiled in)");
  EXPECT_EQ(Refusal(Full(), kFullCaps | (1u << 2), kMode3),
            "image ntrace-full: ctteFeatureCaps (0x12c) bit 2 reads 1, and no feature of the "
            "table has that bit");
  m = Slim();
  m.features = {"sequential-jumps"};
  EXPECT_NE(Refusal(m, 0, 0).find("lists feature sequential-jumps, which no row of the feature "
                                  "table knows"),
            std::string::npos);
}

TEST(FeatureTableTest, AnEnableThatDidNotHoldIsRefused_bad) {
  const uint32_t want = reg::kFeatEnImplicitReturn | reg::kFeatEnRepeatedHistory;
  EXPECT_TRUE(CheckEnablesHeld(Full(), want, want | kMode3).ok());
  const Status s = CheckEnablesHeld(Full(), want, reg::kFeatEnImplicitReturn | kMode3);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "image ntrace-full: the repeated-history enable did not hold: wrote 0x108 to "
            "trTeInstFeatures (0x8), read back 0xc8 (bit 8 clear; WARL: the design did not take "
            "it)");
  EXPECT_FALSE(CheckEnablesHeld(Full(), 1u << 1, 1u << 1).ok());  // no feature's enable
}

TEST(FeatureTableTest, ARequestedFeatureTheManifestDoesNotCompileIsRefused) {
  oracle::FeatureSet f;
  f.repeat_branch = true;
  EXPECT_TRUE(CheckFeaturesCompiled(f, Full(), "--features").ok());
  const Status s = CheckFeaturesCompiled(f, Slim(), "--features");
  EXPECT_EQ(s.message(),
            "--features: image ntrace-slim does not compile repeat-branch (ctteFeatureCaps bit 5 "
            "clear)");
}

}  // namespace
}  // namespace ctte::runner
