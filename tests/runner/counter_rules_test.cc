// Every counter has a rule (issue 32; runner/counter_rules.h, docs/verdicts.md "Every counter
// has a rule"): a self-policing test. Every key a board reports (the capture object of the board
// protocol, its counters, every register of the map) has a row, every row names a key a board
// reports, every row's owner and rules exist, and docs/verdicts.md's table is this table.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "lab/board.h"
#include "lab/wire.h"
#include "oracle/verdict.h"
#include "regmap/registers.h"
#include "runner/counter_rules.h"

namespace ctte::runner {
namespace {

/// Every key the board reports, as counter_rules.h spells it.
std::set<std::string> ReportedKeys() {
  std::set<std::string> keys;
  lab::Capture c;
  c.ready_stall_measured = true;  // its key is written only when measured
  const nlohmann::json j = lab::wire::ToJson(c);
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() == "counters") {
      for (auto k = it->begin(); k != it->end(); ++k) keys.insert("counters." + k.key());
    } else {
      keys.insert("capture." + it.key());
    }
  }
  for (const reg::RegisterInfo& r : reg::kRegisters) keys.insert(std::string("reg.") + r.name);
  return keys;
}

std::string ReadSource(const std::string& path) {
  std::ifstream in(std::string(CTTE_SOURCE_DIR) + "/" + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> SplitRules(const std::string& rules) {
  std::vector<std::string> out;
  std::stringstream ss(rules);
  std::string r;
  while (std::getline(ss, r, ',')) {
    while (!r.empty() && r.front() == ' ') r.erase(r.begin());
    if (!r.empty()) out.push_back(r);
  }
  return out;
}

TEST(CounterRulesTest, EveryCounterTheBoardReportsHasARule) {
  for (const std::string& key : ReportedKeys()) {
    EXPECT_NE(FindCounterRule(key), nullptr)
        << key << " is reported by the board but has no rule: add its row to "
        << "runner/counter_rules.cc and docs/verdicts.md (\"Every counter has a rule\")";
  }
}

TEST(CounterRulesTest, EveryRuleNamesACounterTheBoardReports) {
  const std::set<std::string> keys = ReportedKeys();
  std::set<std::string> seen;
  for (const CounterRule& r : CounterRules()) {
    EXPECT_TRUE(keys.contains(r.key)) << r.key << ": the board reports no such key";
    EXPECT_TRUE(seen.insert(r.key).second) << r.key << ": two rows";
  }
}

TEST(CounterRulesTest, EveryRuleHasAnOwnerAndItsEvidenceRulesExist) {
  // Where the rules are issued: the judges (Failures::Add("rule", ...)) and the runner's
  // infra causes.
  const std::string sources = ReadSource("oracle/judges_run.cc") +
                              ReadSource("oracle/judges_stream.cc") +
                              ReadSource("runner/run_status.cc");
  for (const CounterRule& r : CounterRules()) {
    SCOPED_TRACE(r.key);
    const std::string owner = r.owner;
    const bool verdict = oracle::ParseVerdictCode(owner).has_value();
    EXPECT_TRUE(verdict || owner == "infra" || owner == "invalid" || owner == "none") << owner;
    EXPECT_FALSE(std::string(r.check).empty());
    switch (r.kind) {
      case CounterCheck::kExact:
      case CounterCheck::kBound:
        EXPECT_TRUE(verdict || owner == "invalid") << "a per-run check is owned by a verdict";
        EXPECT_TRUE(owner == "invalid" || !SplitRules(r.rules).empty());
        break;
      case CounterCheck::kIdentity:
        EXPECT_EQ(owner, "infra");
        break;
      case CounterCheck::kTest:
      case CounterCheck::kRecorded:
        EXPECT_EQ(owner, "none");
        EXPECT_STREQ(r.rules, "");
        break;
    }
    for (const std::string& rule : SplitRules(r.rules)) {
      EXPECT_NE(sources.find("\"" + rule + "\""), std::string::npos)
          << "rule " << rule << " is issued nowhere";
    }
  }
}

// docs/verdicts.md's table: "| `key` | kind | owner | rules | check |", in the table's order.
TEST(CounterRulesTest, TheDocTableIsTheTable) {
  std::stringstream doc(ReadSource("docs/verdicts.md"));
  std::string line;
  bool in_section = false;
  std::vector<std::vector<std::string>> rows;
  while (std::getline(doc, line)) {
    if (line.starts_with("## ")) in_section = line == "## Every counter has a rule";
    if (!in_section || !line.starts_with("| `")) continue;
    std::vector<std::string> cells;
    std::stringstream ss(line.substr(1));
    std::string cell;
    while (std::getline(ss, cell, '|')) {
      while (!cell.empty() && cell.front() == ' ') cell.erase(cell.begin());
      while (!cell.empty() && cell.back() == ' ') cell.pop_back();
      cells.push_back(cell);
    }
    rows.push_back(cells);
  }
  const std::span<const CounterRule> table = CounterRules();
  ASSERT_EQ(rows.size(), table.size()) << "docs/verdicts.md, \"Every counter has a rule\"";
  for (size_t i = 0; i < table.size(); ++i) {
    SCOPED_TRACE(table[i].key);
    ASSERT_GE(rows[i].size(), 4u);
    EXPECT_EQ(rows[i][0], "`" + std::string(table[i].key) + "`");
    EXPECT_EQ(rows[i][1], CounterCheckName(table[i].kind));
    EXPECT_EQ(rows[i][2], table[i].owner);
    std::string rules;
    for (const std::string& r : SplitRules(table[i].rules)) {
      rules += (rules.empty() ? "" : ", ") + ("`" + r + "`");
    }
    EXPECT_EQ(rows[i][3], rules);
  }
}

}  // namespace
}  // namespace ctte::runner
