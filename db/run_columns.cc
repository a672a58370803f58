// The columns of `runs` and their binding to RunRecord (db/run_columns.h).
#include "db/run_columns.h"

#include "base/text.h"

namespace ctte::db::internal {

std::string RunColumnList(int schema, const char* prefix, bool null_for_missing) {
  std::string out;
  for (const RunColumn& c : kRunColumns) {
    if (c.since_schema > schema && !null_for_missing) continue;
    if (!out.empty()) out += ", ";
    out += c.since_schema > schema ? std::string("NULL") : std::string(prefix) + c.name;
  }
  return out;
}

std::string RunOutcomeResetList(int schema) {
  std::string out;
  for (const RunColumn& c : kRunColumns) {
    if (c.planned || c.since_schema > schema) continue;
    out += std::string(out.empty() ? "" : ", ") + c.name + " = NULL";
  }
  return out;
}

int RunColumnsAt(int schema) {
  int n = 0;
  for (const RunColumn& c : kRunColumns) n += c.since_schema <= schema ? 1 : 0;
  return n;
}

std::string RunParamList(int schema) {
  std::string out;
  for (int p = 1; p <= RunColumnsAt(schema); ++p) {
    out += (p > 1 ? ", ?" : "?") + std::to_string(p);
  }
  return out;
}

void BindRun(Statement& s, const RunRecord& r, int schema) {
  static_assert(kRunColumnCount == 22, "a new runs column: bind it here and read it below");
  s.Bind(1, r.campaign_id);
  s.BindU64(2, r.index);
  s.Bind(3, Hex64(r.seed));
  s.Bind(4, r.config_json);
  s.Bind(5, RunStatusName(r.status));
  s.BindOpt(6, r.image_name);
  s.BindOpt(7, r.image_sha256);
  s.BindOpt(8, r.board_id);
  s.BindOpt(9, r.fabric.requested_hz);
  s.BindOpt(10, r.fabric.programmed_hz);
  s.BindOpt(11, r.fabric.read_back_hz);
  s.BindOpt(12, r.sink.requested_hz);
  s.BindOpt(13, r.sink.programmed_hz);
  s.BindOpt(14, r.sink.read_back_hz);
  s.BindOpt(15, r.started_at);
  s.BindOpt(16, r.wall_ms);
  s.BindOpt(17, r.stream_sha256);
  s.BindOpt(18, r.stream_size);
  s.BindOpt(19, r.counters_json);
  s.BindOpt(20, r.metrics_json);
  s.BindOpt(21, r.replay_of);
  if (schema >= 2) s.BindOpt(22, r.infra_cause);
}

Status ReadRunColumns(const Statement& s, int first, int64_t id, RunRecord* r) {
  const auto col = [first](int k) { return first + k; };
  r->campaign_id = s.Int(col(0));
  r->index = s.U64(col(1));
  Result<uint64_t> seed = ParseHex64(s.Text(col(2)), "seed");
  if (!seed.ok()) return Status::Corruption("runs.id " + std::to_string(id) + ": bad seed");
  r->seed = *seed;
  r->config_json = s.Text(col(3));
  auto status = ParseRunStatus(s.Text(col(4)));
  if (!status) return Status::Corruption("runs.id " + std::to_string(id) + ": bad status");
  r->status = *status;
  r->image_name = s.Text(col(5));
  r->image_sha256 = s.Text(col(6));
  r->board_id = s.OptInt(col(7));
  r->fabric = {s.OptU64(col(8)), s.OptU64(col(9)), s.OptU64(col(10))};
  r->sink = {s.OptU64(col(11)), s.OptU64(col(12)), s.OptU64(col(13))};
  r->started_at = s.Text(col(14));
  r->wall_ms = s.OptInt(col(15));
  r->stream_sha256 = s.Text(col(16));
  r->stream_size = s.OptU64(col(17));
  r->counters_json = s.Text(col(18));
  r->metrics_json = s.Text(col(19));
  r->replay_of = s.OptInt(col(20));
  r->infra_cause = s.Text(col(21));
  return Status::Ok();
}

}  // namespace ctte::db::internal
