#include "reports/junit_report.h"

#include "reports/text_format.h"

namespace ctte::reports {
namespace {

std::string Attr(const char* name, const std::string& value) {
  return std::string(" ") + name + "=\"" + XmlEscape(value) + "\"";
}

std::string Seconds(const ReportRun& r) {
  return Fixed(static_cast<double>(r.wall_ms.value_or(0)) / 1000.0, 3);
}

std::string Joined(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

}  // namespace

std::string RenderJUnit(const ReportModel& model) {
  uint64_t failures = 0, skipped = 0;
  double seconds = 0;
  for (const ReportRun& r : model.runs) {
    if (r.status == db::RunStatus::kRed) ++failures;
    else if (r.status != db::RunStatus::kGreen) ++skipped;
    seconds += static_cast<double>(r.wall_ms.value_or(0)) / 1000.0;
  }
  const std::string tests = std::to_string(model.runs.size());
  uint64_t control_failures = 0;
  for (const ControlRow& c : model.controls) control_failures += c.passed ? 0 : 1;
  std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x += "<testsuites" + Attr("name", "ctte-lab") +
       Attr("tests", std::to_string(model.runs.size() + model.controls.size())) +
       Attr("failures", std::to_string(failures + control_failures)) + Attr("errors", "0") +
       Attr("skipped", std::to_string(skipped)) + Attr("time", Fixed(seconds, 3)) + ">\n";
  // The control table first: one testcase per control, failed when the control failed.
  if (!model.controls.empty()) {
    x += "  <testsuite" + Attr("name", model.campaign.name + ".controls") +
         Attr("tests", std::to_string(model.controls.size())) +
         Attr("failures", std::to_string(control_failures)) + Attr("errors", "0") +
         Attr("skipped", "0") + Attr("timestamp", model.campaign.created_at) + ">\n";
    for (const ControlRow& c : model.controls) {
      x += "    <testcase" + Attr("classname", model.campaign.name + ".controls") +
           Attr("name", "control " + c.name + " round " + ControlRoundLabel(c.round, c.shard) + " on " +
                            c.image + (c.board.empty() ? "" : " (board " + c.board + ")"));
      const std::string out = "run id " + std::to_string(c.run_id) +
                              (c.board.empty() ? "" : "\nboard: " + c.board) +
                              "\nexpected red: " + JoinVerdicts(c.expect_red) +
                              "\nobserved red: " + JoinVerdicts(c.observed_red) + "\n";
      x += ">\n";
      if (!c.passed) {
        x += "      <failure" + Attr("message", "control failed: " + c.reason) +
             Attr("type", "unsound") + ">" + XmlEscape(out) + "</failure>\n";
      }
      x += "      <system-out>" + XmlEscape(out) + "</system-out>\n    </testcase>\n";
    }
    x += "  </testsuite>\n";
  }
  x += "  <testsuite" + Attr("name", model.campaign.name) + Attr("tests", tests) +
       Attr("failures", std::to_string(failures)) + Attr("errors", "0") +
       Attr("skipped", std::to_string(skipped)) + Attr("time", Fixed(seconds, 3)) +
       Attr("timestamp", model.campaign.created_at) + ">\n";
  x += "    <properties>\n";
  x += "      <property" + Attr("name", "campaign_id") +
       Attr("value", std::to_string(model.campaign.id)) + "/>\n";
  x += "      <property" + Attr("name", "seed") + Attr("value", Hex64(model.campaign.seed)) +
       "/>\n";
  x += "      <property" + Attr("name", "spec_sha256") + Attr("value", model.campaign.spec_sha256) +
       "/>\n";
  if (model.unsound) {
    x += "      <property" + Attr("name", "soundness") +
         Attr("value", "UNSOUND: a control failed; these draws measure nothing") + "/>\n";
  }
  x += "    </properties>\n";
  for (const ReportRun& r : model.runs) {
    std::string workload = r.AxisValue("workload");
    std::string classname = model.campaign.name + (workload.empty() ? "" : "." + workload);
    x += "    <testcase" + Attr("classname", classname) +
         Attr("name", "run " + std::to_string(r.index) + " seed " + Hex64(r.seed) +
                          (model.unsound ? " [UNSOUND campaign]" : "")) +
         Attr("time", Seconds(r));
    if (r.status == db::RunStatus::kGreen) {
      if (!r.retried()) {
        x += "/>\n";
        continue;
      }
      // Passed: the run went green; the note says it took more than one attempt.
      x += ">\n      <system-out>" +
           XmlEscape("retried: passed on attempt " +
                     std::to_string(r.earlier_attempts.size() + 1) + "\n" + r.AttemptsNote()) +
           "</system-out>\n    </testcase>\n";
      continue;
    }
    x += ">\n";
    if (r.status == db::RunStatus::kRed) {
      std::string body;
      for (const ReportVerdict& v : r.verdicts) {
        if (v.outcome == db::Outcome::kFail) body += v.verdict + ": " + v.evidence + "\n";
      }
      if (body.empty()) body = r.reason + "\n";
      body += "replay: " + r.replay_command + "\n";
      std::vector<std::string> failed = r.FailedVerdicts();
      // A bisection that named a culprit (docs/triage.md) says which factor matters.
      const std::string culprit = model.CulpritOf(r.id);
      if (!culprit.empty()) body += "culprit factor (bisection): " + culprit + "\n";
      x += "      <failure" +
           Attr("message", (failed.empty() ? "red: " + r.reason : "red: " + Joined(failed)) +
                               (culprit.empty() ? "" : "; culprit: " + culprit)) +
           Attr("type", "red") + ">" + XmlEscape(body) + "</failure>\n";
    } else {
      std::string why = std::string(db::RunStatusName(r.status)) +
                        (r.reason.empty() ? "" : ": " + r.reason);
      x += "      <skipped" + Attr("message", why) + "/>\n";
    }
    std::string props;
    for (const auto& [name, value] : r.axes) props += name + "=" + value + "\n";
    x += "      <system-out>" +
         XmlEscape("run id " + std::to_string(r.id) + "\n" + props + r.AttemptsNote()) +
         "</system-out>\n";
    x += "    </testcase>\n";
  }
  x += "  </testsuite>\n</testsuites>\n";
  return x;
}

}  // namespace ctte::reports
