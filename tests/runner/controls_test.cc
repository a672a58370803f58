// runner/controls: the controls grammar, their index namespace (draws unchanged), the control
// rule, and that a broken judge makes a mutant control fail.
#include "runner/controls.h"

#include <gtest/gtest.h>

#include <set>

#include "base/files.h"
#include "runner/draw.h"

namespace ctte::runner {
namespace {

CampaignSpec Load(const char* name) {
  Result<SpecCheck> s = LoadCampaignSpec(std::string(CTTE_SOURCE_DIR) + "/campaigns/" + name);
  EXPECT_TRUE(s.ok() && s->ok());
  return s->spec;
}

TEST(ControlsTest, ControlsNeverShiftTheDraws) {
  for (const char* name : {"smoke.json", "nightly.json"}) {
    CampaignSpec with = Load(name);
    ASSERT_FALSE(with.controls.empty());
    CampaignSpec without = with;
    without.controls.clear();
    for (uint64_t i = 0; i < 300; ++i) EXPECT_EQ(Draw(with, i), Draw(without, i)) << name << i;
  }
}

TEST(ControlsTest, ControlDrawsFixTheirAxesImageAndIndexAndCarryTheMarker) {
  const CampaignSpec spec = Load("smoke.json");
  for (size_t k = 0; k < spec.controls.size(); ++k) {
    const ControlSpec& ctl = spec.controls[k];
    const RunConfig c = DrawControl(spec, k, 1);
    EXPECT_EQ(c.image, ctl.image);
    EXPECT_EQ(c.index, kControlIndexBase + kMaxControls + k);
    EXPECT_TRUE(IsControlIndex(c.index));
    for (const auto& [axis, value] : ctl.axes) EXPECT_EQ(c.AxisValue(axis), value) << axis;
    ASSERT_TRUE(c.control.has_value());
    EXPECT_EQ(c.control->name, ctl.name);
    EXPECT_EQ(c.control->round, 1u);
    EXPECT_EQ(c.control->expect_red, ctl.expect_red);
    Result<RunConfig> back = RunConfigFromJson(RunConfigToJson(c));
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(*back, c);
  }
  EXPECT_EQ(RunConfigToJson(Draw(spec, 0)).find("control"), std::string::npos);
}

// Placement: every board runs every clean control and at least one expected red; the red
// ones are dealt round-robin; one board keeps the unplaced indices.
TEST(ControlsTest, EveryBoardRunsTheCleanControlsAndAtLeastOneRed) {
  const CampaignSpec spec = Load("smoke.json");  // 12 controls: 0 and 1 clean, 2..11 red
  const size_t n = spec.controls.size();
  auto one = ControlPlacement(spec, 1);
  ASSERT_TRUE(one.ok());
  ASSERT_EQ(one->size(), 1u);
  EXPECT_EQ((*one)[0].size(), n);
  for (unsigned boards : {2u, 3u, 11u, 12u, 40u}) {
    auto placed = ControlPlacement(spec, boards);
    ASSERT_TRUE(placed.ok()) << boards;
    ASSERT_EQ(placed->size(), boards);
    std::set<size_t> red_seen;
    for (unsigned b = 0; b < boards; ++b) {
      const std::vector<size_t>& ks = (*placed)[b];
      size_t clean = 0, red = 0;
      for (size_t k : ks) {
        (spec.controls[k].expect_red.empty() ? clean : red) += 1;
        if (!spec.controls[k].expect_red.empty()) red_seen.insert(k);
        const RunConfig c = DrawControl(spec, k, 0, ShardSpec{}, b);
        EXPECT_EQ(c.index, ControlIndex(0, b * n + k)) << boards << " " << b << " " << k;
        EXPECT_EQ(c.seed, DrawControl(spec, k, 0).seed) << "the same control on every board";
      }
      EXPECT_EQ(clean, 2u) << boards << " boards, board " << b;
      EXPECT_GE(red, 1u) << boards << " boards, board " << b;
    }
    EXPECT_EQ(red_seen.size(), n - 2) << "every red control runs somewhere";
  }
  auto too_many = ControlPlacement(spec, 84);  // 12 * 84 > 1000 control runs a round
  ASSERT_FALSE(too_many.ok());
  EXPECT_NE(too_many.status().message().find("12 controls on 84 boards"), std::string::npos)
      << too_many.status().ToString();
}

TEST(ControlsTest, BadControlsAreReportedWithTheirPaths) {
  const SpecCheck c = ParseCampaignSpec(R"({"name": "x", "seed": 1, "runs": 1,
    "images": ["ntrace-slim"], "controls": [
      {"name": "a", "image": "ntrace-slim", "expect_red": ["loss_acounting"]},
      {"name": "a", "image": "ntrace-slim", "expect_red": [], "axes": {"mode": "xtm"}},
      {"image": "ntrace-slim", "expect_red": [], "colour": 1}]})");
  std::string all;
  for (const SpecError& e : c.errors) all += e.ToString() + "\n";
  EXPECT_NE(all.find("$.controls[0].expect_red[0]: unknown verdict code"), std::string::npos)
      << all;
  EXPECT_NE(all.find("$.controls[1].name: duplicate control"), std::string::npos) << all;
  EXPECT_NE(all.find("$.controls[1].axes.mode:"), std::string::npos) << all;
  EXPECT_NE(all.find("$.controls[2].name: missing required field"), std::string::npos) << all;
  EXPECT_NE(all.find("$.controls[2].colour: unknown key"), std::string::npos) << all;
}

TEST(ControlsTest, TheControlRule) {
  std::string why;
  EXPECT_TRUE(ControlPassed({}, RunStatus::kGreen, {}, &why));
  EXPECT_FALSE(ControlPassed({}, RunStatus::kRed, {"liveness"}, &why));
  EXPECT_TRUE(ControlPassed({"liveness"}, RunStatus::kRed, {"counter_consistency", "liveness"},
                            &why));
  EXPECT_FALSE(ControlPassed({"liveness", "determinism"}, RunStatus::kRed, {"liveness"}, &why));
  EXPECT_NE(why.find("determinism"), std::string::npos);
  EXPECT_FALSE(ControlPassed({"liveness"}, RunStatus::kGreen, {}, &why));
  EXPECT_FALSE(ControlPassed({"liveness"}, RunStatus::kInvalid, {"liveness"}, &why));
  EXPECT_FALSE(ControlPassed({}, RunStatus::kInfra, {}, &why));
}

// A judge that always passes: its mutant control can no longer turn it red, so the control
// fails (and the soak reports the campaign UNSOUND: SoakControlsTest).
TEST(ControlsTest, AJudgeThatAlwaysPassesFailsItsControl) {
  const CampaignSpec spec = Load("smoke.json");
  size_t k = 0;
  while (spec.controls[k].name != "silent-drop") ++k;
  RunOutcome out;
  out.config = DrawControl(spec, k, 0);
  out.status = RunStatus::kRed;
  for (oracle::VerdictCode code : {oracle::VerdictCode::kDecodeIntegrity,
                                   oracle::VerdictCode::kLossAccounting}) {
    oracle::Verdict v;
    v.code = code;
    v.outcome = oracle::Outcome::kFail;
    out.verdicts.push_back(v);
  }
  EXPECT_TRUE(JudgeControl(out).passed);
  ApplyVerdictOverride(
      [](std::vector<oracle::Verdict>* vs) {
        for (oracle::Verdict& v : *vs) {
          if (v.code == oracle::VerdictCode::kLossAccounting) v.outcome = oracle::Outcome::kPass;
        }
      },
      &out);
  const ControlResult r = JudgeControl(out);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.reason, "expected red but not red: loss_accounting");
}

}  // namespace
}  // namespace ctte::runner
