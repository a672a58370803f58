// runner/controls: the controls grammar, their index namespace (draws unchanged), the control
// rule, and that a broken judge makes a mutant control fail.
#include "runner/controls.h"

#include <gtest/gtest.h>

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
