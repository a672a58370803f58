#include "base/text.h"

#include <gtest/gtest.h>

namespace ctte {
namespace {

TEST(TextTest, Hex64IsSixteenLowerCaseDigits) {
  EXPECT_EQ(Hex64(0), "0x0000000000000000");
  EXPECT_EQ(Hex64(0xABCDEFull), "0x0000000000abcdef");
  EXPECT_EQ(Hex64(UINT64_MAX), "0xffffffffffffffff");
  EXPECT_EQ(HexShort(0x80000000), "0x80000000");
  EXPECT_EQ(HexShort(0), "0x0");
}

TEST(TextTest, ParseHex64AcceptsOnlyTheWholeNumber) {
  EXPECT_EQ(*ParseHex64("0x1234", "x"), 0x1234u);
  EXPECT_EQ(*ParseHex64("0XFFFFFFFFFFFFFFFF", "x"), UINT64_MAX);
  for (const char* bad : {"", "0x", "1234", "0x1g", "0x00000000000000000", " 0x1", "0x1 "}) {
    Result<uint64_t> r = ParseHex64(bad, "$.seed");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("$.seed"), std::string::npos);
  }
}

TEST(TextTest, ParseDecimal64NeverWraps) {
  EXPECT_EQ(*ParseDecimal64("0", "x"), 0u);
  EXPECT_EQ(*ParseDecimal64("18446744073709551615", "x"), UINT64_MAX);
  EXPECT_FALSE(ParseDecimal64("18446744073709551616", "x").ok());
  EXPECT_FALSE(ParseDecimal64("99999999999999999999", "x").ok());
  EXPECT_FALSE(ParseDecimal64("-1", "x").ok());
  EXPECT_FALSE(ParseDecimal64("", "x").ok());
}

TEST(TextTest, MalformedSeedIsRefusedNotReadAsAnotherSeed) {
  // Regression: this once read as 0x31 (the last character's code minus '0' added on).
  EXPECT_FALSE(ParseU64Text("0000000000000000000a", "$.seed").ok());
  EXPECT_EQ(*ParseU64Text("0x000000000000000a", "$.seed"), 10u);
  EXPECT_EQ(*ParseU64Text("00000000000000000010", "$.seed"), 10u);
}

TEST(TextTest, NowIsoUtcHasTheDocumentedShape) {
  const std::string t = NowIsoUtc();
  ASSERT_EQ(t.size(), 20u);
  EXPECT_EQ(t[4], '-');
  EXPECT_EQ(t[10], 'T');
  EXPECT_EQ(t.back(), 'Z');
}

TEST(TextTest, FormatDurationPicksAUnit) {
  EXPECT_EQ(FormatDuration(1.25), "1.25 s");
  EXPECT_EQ(FormatDuration(187), "3 min 07 s");
  EXPECT_EQ(FormatDuration(7500), "2 h 05 min");
  EXPECT_EQ(FormatDuration(-1), "0.00 s");
}

}  // namespace
}  // namespace ctte
