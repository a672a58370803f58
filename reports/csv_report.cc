#include "reports/csv_report.h"

#include <vector>

#include "reports/text_format.h"

namespace ctte::reports {
namespace {

std::string OptionalInt(const std::optional<uint64_t>& v) {
  return v ? std::to_string(*v) : std::string();
}

void AppendRow(const std::vector<std::string>& fields, std::string* out) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i) *out += ',';
    *out += CsvField(fields[i]);
  }
  *out += "\r\n";
}

}  // namespace

std::string RenderCsv(const ReportModel& model) {
  std::vector<std::string> header = {"run_id",   "campaign",    "index",       "seed",
                                     "status",   "reason",      "twin_of",     "board_id",
                                     "attempts", "infra_cause", "retry_causes"};
  header.insert(header.end(), model.factors.begin(), model.factors.end());
  for (const char* h : {"image", "image_sha256", "fabric_hz", "sink_hz", "started_at", "wall_ms",
                        "stream_sha256", "stream_size", "wire_bits_per_instruction",
                        "payload_bits_per_instruction", "messages_per_kilo_instruction",
                        "reference_wire_bits_per_instruction", "output_peak_to_mean",
                        "reference_instructions",
                        "lost_instructions", "loss_fraction", "sink_capacity",
                        "recovered_episodes", "unrecovered_episodes"}) {
    header.emplace_back(h);
  }
  for (const VerdictTotals& t : model.verdict_totals) header.push_back(t.verdict);
  header.emplace_back("replay_command");

  std::string out;
  AppendRow(header, &out);
  for (const ReportRun& r : model.runs) {
    std::vector<std::string> row = {std::to_string(r.id),      model.campaign.name,
                                    std::to_string(r.index),   Hex64(r.seed),
                                    db::RunStatusName(r.status), r.reason,
                                    OptionalInt(r.twin_of)};
    std::string causes;
    for (const db::AttemptRecord& a : r.earlier_attempts) {
      causes += (causes.empty() ? "" : ";") +
                (a.infra_cause.empty() ? std::string(db::RunStatusName(a.status)) : a.infra_cause);
    }
    row.push_back(r.board_id ? std::to_string(*r.board_id) : "");
    row.push_back(std::to_string(r.earlier_attempts.size() + 1));
    row.push_back(r.infra_cause);
    row.push_back(causes);
    for (const std::string& f : model.factors) row.push_back(r.AxisValue(f));
    row.push_back(r.image_name);
    row.push_back(r.image_sha256);
    row.push_back(OptionalInt(r.fabric_hz));
    row.push_back(OptionalInt(r.sink_hz));
    row.push_back(r.started_at);
    row.push_back(r.wall_ms ? std::to_string(*r.wall_ms) : "");
    row.push_back(r.stream_sha256);
    row.push_back(OptionalInt(r.stream_size));
    row.push_back(Fixed(r.wire_bits_per_instruction, 4));
    row.push_back(Fixed(r.payload_bits_per_instruction, 4));
    row.push_back(Fixed(r.messages_per_kilo_instruction, 2));
    row.push_back(Fixed(r.reference_wire_bits_per_instruction, 4));
    row.push_back(Fixed(r.output_peak_to_mean, 3));
    row.push_back(OptionalInt(r.reference_instructions));
    row.push_back(OptionalInt(r.lost_instructions));
    row.push_back(Fixed(r.loss_fraction, 6));
    row.push_back(Fixed(r.sink_capacity, 4));
    row.push_back(std::to_string(r.recovered_episodes));
    row.push_back(std::to_string(r.unrecovered_episodes));
    for (const VerdictTotals& t : model.verdict_totals) {
      std::string cell;
      for (const ReportVerdict& v : r.verdicts) {
        if (v.verdict == t.verdict) cell = db::OutcomeName(v.outcome);
      }
      row.push_back(cell);
    }
    row.push_back(r.replay_command);
    AppendRow(row, &out);
  }
  return out;
}

}  // namespace ctte::reports
