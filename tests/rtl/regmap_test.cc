// The register map cannot drift: regmap/regmap.json is its one source, the C++ header and the
// RTL package are generated from it, and these tests check the other two places that state it:
// the table in docs/encoder-behaviour.md section 9 (offsets, names, field bits) and the built
// image (what its constant registers read back, which exercises the generated RTL package
// against the generated header).
#include <cctype>
#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "regmap/registers.h"
#include "tests/rtl/image_harness.h"

namespace ctte::rtl_test {
namespace {

struct DocRow {
  uint32_t offset = 0;
  std::string name;
  std::string contents;
};

// The rows of section 9's register table, in document order.
std::vector<DocRow> ReadDocTable() {
  std::ifstream in(std::string(CTTE_SOURCE_DIR) + "/docs/encoder-behaviour.md");
  EXPECT_TRUE(in) << "cannot open docs/encoder-behaviour.md";
  std::vector<DocRow> rows;
  bool in_section = false;
  std::string line;
  const std::regex row(R"(^\| (0x[0-9A-Fa-f]+) \| (\w+) \| (.*) \|$)");
  while (std::getline(in, line)) {
    if (line.starts_with("## ")) in_section = line.starts_with("## 9. ");
    std::smatch m;
    if (in_section && std::regex_match(line, m, row)) {
      rows.push_back(
          {static_cast<uint32_t>(std::stoul(m[1].str(), nullptr, 16)), m[2].str(), m[3].str()});
    }
  }
  return rows;
}

// Lower-case letters and digits only: "half-words" and "Halfwords" compare equal.
std::string Normalize(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return out;
}

// "0 Active, 6:4 InstMode (WARL: 0, 3, 6), ..." -> {"0": "Active", "6:4": "InstMode (...)"}:
// split at commas outside parentheses, each item "<bits> <text>".
std::map<std::string, std::string> DocFields(const std::string& contents) {
  std::map<std::string, std::string> fields;
  std::vector<std::string> items(1);
  int depth = 0;
  for (char c : contents) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == ',' && depth == 0) {
      items.emplace_back();
    } else {
      items.back() += c;
    }
  }
  const std::regex item(R"(^\s*(\d+(?::\d+)?) (.*)$)");
  for (const std::string& s : items) {
    std::smatch m;
    if (std::regex_match(s, m, item)) fields[m[1].str()] = m[2].str();
  }
  return fields;
}

TEST(RegmapTest, DocTableListsEveryRegisterAtItsOffset) {
  const std::vector<DocRow> rows = ReadDocTable();
  ASSERT_EQ(rows.size(), std::size(reg::kRegisters))
      << "docs/encoder-behaviour.md section 9 and regmap/regmap.json list different registers";
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].name, reg::kRegisters[i].name) << "row " << i;
    EXPECT_EQ(rows[i].offset, reg::kRegisters[i].offset) << rows[i].name;
  }
}

TEST(RegmapTest, DocTableNamesEveryFieldAtItsBits) {
  std::map<std::string, std::string> contents;
  for (const DocRow& r : ReadDocTable()) contents[r.name] = r.contents;
  for (const reg::FieldInfo& f : reg::kFields) {
    SCOPED_TRACE(std::string(f.reg) + "." + f.name);
    ASSERT_TRUE(contents.contains(f.reg));
    const std::map<std::string, std::string> doc = DocFields(contents[f.reg]);
    const std::string bits = f.msb == f.lsb ? std::to_string(f.msb)
                                            : std::to_string(f.msb) + ":" + std::to_string(f.lsb);
    auto it = doc.find(bits);
    ASSERT_NE(it, doc.end()) << "section 9 has no item '" << bits << " ...' in " << f.reg;
    EXPECT_TRUE(Normalize(it->second).starts_with(Normalize(f.doc)))
        << "bits " << bits << ": doc says '" << it->second << "', regmap.json '" << f.doc << "'";
  }
}

TEST(RegmapTest, GeneratedConstantsKeepTheirTciValues) {
  // Spelled out once more, from spec/tci-encoder.md and the contract, so that an edit of
  // regmap.json that moves one of these fails here as well as in the RTL tests.
  static_assert(reg::kTeControl == 0x000 && reg::kTeImpl == 0x004 && reg::kCaps == 0x10C);
  static_assert(reg::kActive == 1u && reg::kEnable == 2u && reg::kInstTracing == 4u &&
                reg::kEmpty == 8u && reg::kStallOrOverflow == (1u << 12));
  static_assert(reg::kInstModeBtm == 3 && reg::kInstModeHtm == 6);
  static_assert(reg::kSyncModeOff == 0 && reg::kSyncModeMessages == 1 &&
                reg::kSyncModeHalfwords == 3);
  static_assert(reg::Control(6, 3, 15) == ((6u << 4) | (3u << 16) | (15u << 20)));
  static_assert(reg::kCapsValue == 0x7F);
  SUCCEED();
}

TEST(RegmapTest, ImageReadsTheConstantsOfTheMap) {
  std::string error;
  auto h = ImageHarness::Load(ImagePath("ntrace-slim"), {}, &error);
  ASSERT_NE(h, nullptr) << error;
  h->Reset();
  EXPECT_EQ(h->ReadReg(reg::kTeImpl), reg::kTeImplValue);
  EXPECT_EQ(h->ReadReg(reg::kCaps), reg::kCapsValue);
  // No filters and no data trace (docs/verdicts.md, "Every counter has a rule"); not a mutant.
  EXPECT_EQ(h->ReadReg(reg::kTeInstFilters), 0u);
  EXPECT_EQ(h->ReadReg(reg::kTeDataControl), 0u);
  EXPECT_EQ(h->ReadReg(reg::kMutant), 0u);
  EXPECT_EQ((h->ReadReg(reg::kProfile) >> reg::kProfileXlenLsb) & 0xffu, 64u);
  const uint32_t control = h->ReadReg(reg::kTeControl);
  EXPECT_EQ(control, (uint32_t{reg::kFormatNTrace} << reg::kFormatLsb) | reg::kInhibitSrc |
                         reg::Control(reg::kInstModeHtm, reg::kSyncModeOff, 0) | reg::kEmpty);
  // The writable fields hold what is written; the const ones keep their values.
  h->WriteReg(reg::kTeControl,
              reg::kActive | reg::Control(reg::kInstModeBtm, reg::kSyncModeHalfwords, 9));
  EXPECT_EQ(h->ReadReg(reg::kTeControl),
            (uint32_t{reg::kFormatNTrace} << reg::kFormatLsb) | reg::kInhibitSrc | reg::kActive |
                reg::Control(reg::kInstModeBtm, reg::kSyncModeHalfwords, 9) | reg::kEmpty);
  EXPECT_EQ(h->ReadReg(reg::kStatus) & reg::kStatusEmpty, reg::kStatusEmpty);
  EXPECT_FALSE(h->failed()) << h->failure();
}

}  // namespace
}  // namespace ctte::rtl_test
