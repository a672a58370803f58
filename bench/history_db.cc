// A synthetic lab history: a month of nightly soaks (default 30 nights of 10 000 runs) written
// through db::Database::RecordRuns, to time `ctte-lab history` and `ctte-lab report` on the
// size of database a lab accumulates (docs/soak.md#history-at-scale).
//
// Usage: history_db OUT.db [--nights N] [--runs R] [--seed S]
//        history_db --migrate FILE.db   (opens FILE.db for writing: migrates it to this build's
//                                       schema, backfilling what a migration adds; prints the time)
//
// The rows look like the soak's: nightly's axes drawn with its weights into a RunConfig-shaped
// config_json, statuses in a soak's proportions (about 2 % red, 1 % invalid, 0.5 % infra, 1 % of
// runs retried after a board death), eight verdict rows per judged run with evidence and
// metrics like the judges', bounded metrics_json (runner/outcome.h: at most 16 episodes plus
// totals and log2 histograms), a 4 KiB stored stream per red run (the soak keeps up to the
// ring's size: real files are larger), a replay of one red run in ten, and the nightly
// controls. Deterministic for a seed.
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <string>
#include <vector>

#include "db/database.h"

namespace {

using ctte::db::AttemptRecord;
using ctte::db::Outcome;
using ctte::db::RunRecord;
using ctte::db::RunStatus;
using ctte::db::RunWrite;
using ctte::db::VerdictRecord;

struct Rng {
  uint64_t s;
  uint64_t Next() {  // splitmix64
    uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  uint64_t Below(uint64_t n) { return Next() % n; }
  double Unit() { return static_cast<double>(Next() >> 11) / 9007199254740992.0; }
};

struct Axis {
  const char* name;
  std::vector<std::pair<const char*, int>> values;  // value, weight
};

const std::vector<Axis>& Axes() {
  static const std::vector<Axis> axes = {
      {"overflow_regime", {{"none", 2}, {"sparse", 2}, {"moderate", 2}, {"saturating", 1}}},
      {"backpressure",
       {{"none", 3}, {"uniform:90", 1}, {"uniform:50", 1}, {"uniform:10", 1}, {"bursty:1-16", 1},
        {"bursty:16-256", 1}, {"bursty:256-4096", 1}}},
      {"mode", {{"htm", 1}, {"btm", 1}}},
      {"sync",
       {{"off", 2}, {"messages:4", 1}, {"messages:8", 1}, {"halfwords:8", 1},
        {"halfwords:12", 1}, {"halfwords:19", 1}}},
      {"workload",
       {{"loop", 1}, {"calls", 1}, {"ptrchase", 1}, {"sort", 1}, {"switch", 1}, {"traps", 1},
        {"random", 4}}},
      {"window", {{"full", 4}, {"late_start", 1}, {"pause_resume", 1}, {"early_stop", 1}}},
      {"interrupts", {{"none", 4}, {"sparse", 2}, {"storm", 1}}},
      {"fabric_mhz", {{"90", 3}, {"50", 1}, {"75", 1}}},
  };
  return axes;
}

const char* Draw(const Axis& a, Rng& rng) {
  int total = 0;
  for (const auto& v : a.values) total += v.second;
  int pick = static_cast<int>(rng.Below(static_cast<uint64_t>(total)));
  for (const auto& v : a.values) {
    if ((pick -= v.second) < 0) return v.first;
  }
  return a.values.back().first;
}

std::string Hex(uint64_t v) {
  char b[19];
  std::snprintf(b, sizeof b, "0x%016" PRIx64, v);
  return b;
}

std::string Sha(Rng& rng) {
  std::string s;
  for (int k = 0; k < 4; ++k) {
    char b[17];
    std::snprintf(b, sizeof b, "%016" PRIx64, rng.Next());
    s += b;
  }
  return s;
}

const char* const kVerdicts[] = {"counter_consistency", "decode_integrity", "determinism",
                                 "flush_completeness",  "liveness",         "loss_accounting",
                                 "post_recovery_losslessness", "window_semantics"};

// config_json as runner/run_config.cc writes it (same keys, similar sizes).
std::string Config(uint64_t index, uint64_t seed, const std::string& image,
                   const std::vector<std::string>& values, Rng& rng, const std::string& control) {
  std::string axes;
  for (size_t k = 0; k < Axes().size(); ++k) {
    axes += std::string(k ? "," : "") + "\"" + Axes()[k].name + "\":\"" + values[k] + "\"";
  }
  std::string interrupts;
  for (int k = 0; k < 6; ++k) interrupts += (k ? "," : "") + std::to_string(rng.Below(200000));
  return "{\"campaign\":\"nightly\",\"index\":" + std::to_string(index) + ",\"seed\":\"" +
         Hex(seed) + "\",\"twin_of\":null,\"image\":\"" + image + "\",\"axes\":{" + axes +
         "},\"fabric_hz\":" + values[7] + "000000,\"sink_hz\":100000000,"
         "\"core_stall_percent\":" + std::to_string(rng.Below(60)) +
         ",\"backpressure\":{\"kind\":\"none\",\"ready_percent\":100,\"burst_min\":0,"
         "\"burst_max\":0},\"sync\":{\"kind\":\"halfwords\",\"period_log2\":12},"
         "\"interrupt_at\":[" + interrupts + "],\"interrupt_every\":0,\"window\":{\"start\":0,"
         "\"pause\":null,\"resume\":null,\"stop\":null},\"stall_seed\":\"" + Hex(rng.Next()) +
         "\",\"sink_seed\":\"" + Hex(rng.Next()) + "\",\"program_seed\":\"" + Hex(rng.Next()) +
         "\"" + control + "}";
}

// metrics_json in the stored (bounded) form of runner/outcome.cc.
std::string Metrics(uint64_t episodes, Rng& rng, const std::string& extra) {
  const uint64_t ref = 200000 + rng.Below(400000);
  std::string eps;
  const uint64_t kept = episodes < 16 ? episodes : 16;
  for (uint64_t k = 0; k < kept; ++k) {
    eps += std::string(k ? "," : "") + "{\"error_offset\":" + std::to_string(100 * k + 17) +
           ",\"recovered\":true,\"closed_window\":false,\"anchor_offset\":" +
           std::to_string(100 * k + 28) + ",\"anchor_sync\":7,\"recovery_messages\":1,"
           "\"recovery_bytes\":11,\"ambiguous\":false,\"instructions_missing\":" +
           std::to_string(rng.Below(300)) + "}";
  }
  const std::string bpi = std::to_string(1.5 + rng.Unit() * 3);
  return "{\"reference_instructions\":" + std::to_string(ref) + ",\"decoded_instructions\":" +
         std::to_string(ref) + ",\"verified_instructions\":" + std::to_string(ref) +
         ",\"announced_lost_instructions\":" + std::to_string(episodes * 100) +
         ",\"silent_lost_instructions\":0,\"late_open_instructions\":0,\"messages\":" +
         std::to_string(ref / 9) + ",\"stream_bytes\":" + std::to_string(ref / 3) +
         ",\"segments\":" + std::to_string(episodes + 1) +
         ",\"ambiguous_segments\":0,\"payload_bits_per_instruction\":" + bpi +
         ",\"wire_bits_per_instruction\":" + bpi + ",\"reference_bytes_identical\":" +
         (episodes ? "false" : "true") + ",\"ready_stall_bound\":96,\"loss_episodes\":" +
         std::to_string(episodes) + ",\"episodes\":[" + eps + "],\"episodes_omitted\":" +
         std::to_string(episodes - kept) + ",\"episode_summary\":{\"recovered\":" +
         std::to_string(episodes) + ",\"unrecovered\":0,\"closed_window\":0,\"ambiguous\":0,"
         "\"instructions_missing\":" + std::to_string(episodes * 100) +
         ",\"recovery_bytes_total\":" + std::to_string(episodes * 11) +
         ",\"recovery_bytes_max\":11,\"recovery_messages_max\":1,\"recovery_bytes_log2\":" +
         (episodes ? "[0,0,0,0," + std::to_string(episodes) + "]" : std::string("[]")) +
         ",\"recovery_messages_log2\":" +
         (episodes ? "[0," + std::to_string(episodes) + "]" : std::string("[]")) +
         "},\"fabric_cycles\":1073373,\"sink_cycles\":2146745,\"sim_time_ps\":21467450000,"
         "\"beats\":536987,\"retired\":536981,\"core_stop\":\"exited\","
         "\"board_wall_seconds\":" + std::to_string(1 + rng.Unit() * 8) + extra + "}";
}

std::vector<VerdictRecord> Verdicts(bool red, Rng& rng) {
  std::vector<VerdictRecord> out;
  const size_t failing = red ? rng.Below(8) : 99;
  for (size_t k = 0; k < 8; ++k) {
    const bool fail = k == failing;
    const bool na = k == 2 && rng.Below(10) != 0;  // determinism: only determinism pairs
    VerdictRecord v;
    v.verdict = kVerdicts[k];
    v.outcome = fail ? Outcome::kFail : na ? Outcome::kNotApplicable : Outcome::kPass;
    v.evidence = std::string(fail ? "after Error at byte " : "") + std::to_string(rng.Below(99999)) +
                 " messages parse; " + std::to_string(rng.Below(999999)) +
                 " decoded PCs equal the reference in " + std::to_string(rng.Below(2000)) +
                 " segments; loss announced, so no byte comparison with the reference encoder";
    v.metrics_json = "{\"verified_pcs\":" + std::to_string(rng.Below(999999)) +
                     ".0,\"segments\":" + std::to_string(rng.Below(2000)) + ".0,\"rule\":\"" +
                     (fail ? "mismatch" : na ? "not_exercised" : "pass") + "\"}";
    out.push_back(std::move(v));
  }
  return out;
}

int Usage() {
  std::fprintf(stderr, "usage: history_db OUT.db [--nights N] [--runs R] [--seed S]\n"
                       "       history_db --migrate FILE.db\n");
  return 2;
}

// An older history made by an older build, brought to this build's schema as Open() does.
int Migrate(const std::string& path) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::clock_t c0 = std::clock();
  auto before = ctte::db::Database::OpenReadOnly(path);
  if (!before.ok()) {
    std::fprintf(stderr, "history_db: %s\n", before.status().ToString().c_str());
    return 3;
  }
  const ctte::Result<int> from = (*before)->SchemaVersion();
  before->reset();
  auto opened = ctte::db::Database::Open(path);
  if (!opened.ok()) {
    std::fprintf(stderr, "history_db: %s\n", opened.status().ToString().c_str());
    return 3;
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%s: schema %d -> %d in %.1f s wall, %.1f s CPU (quick_check included)\n",
              path.c_str(), from.ok() ? *from : 0, (*opened)->LatestSchemaVersion(), s,
              static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return Usage();
  if (std::strcmp(argv[1], "--migrate") == 0) return argc == 3 ? Migrate(argv[2]) : Usage();
  const std::string path = argv[1];
  uint64_t nights = 30, runs = 10000, seed = 1;
  for (int i = 2; i + 1 < argc; i += 2) {
    const uint64_t v = std::strtoull(argv[i + 1], nullptr, 10);
    if (std::strcmp(argv[i], "--nights") == 0) nights = v;
    else if (std::strcmp(argv[i], "--runs") == 0) runs = v;
    else if (std::strcmp(argv[i], "--seed") == 0) seed = v;
    else return Usage();
  }
  if (std::filesystem::exists(path)) {
    std::fprintf(stderr, "history_db: %s exists; give a new file\n", path.c_str());
    return 2;
  }
  const auto t0 = std::chrono::steady_clock::now();
  auto opened = ctte::db::Database::Open(path);
  if (!opened.ok()) {
    std::fprintf(stderr, "history_db: %s\n", opened.status().ToString().c_str());
    return 3;
  }
  ctte::db::Database& db = **opened;
  Rng rng{seed};
  const auto check = [](const ctte::Status& s) {
    if (!s.ok()) {
      std::fprintf(stderr, "history_db: %s\n", s.ToString().c_str());
      std::exit(3);
    }
  };
  check(db.UpsertImage({"ntrace-slim", Sha(rng), "b1", "{}"}).status());
  check(db.UpsertImage({"ntrace-shallow", Sha(rng), "b2", "{}"}).status());
  const std::string slim_sha = Sha(rng), shallow_sha = Sha(rng);
  uint64_t written = 0;
  for (uint64_t night = 0; night < nights; ++night) {
    const uint64_t cseed = rng.Next();
    char day[32];
    std::snprintf(day, sizeof day, "2026-11-%02" PRIu64 "T22:00:00Z", night % 30 + 1);
    ctte::db::CampaignRecord c{"nightly", "The soak: every axis and both images.", cseed,
                               "{\"name\":\"nightly\",\"seed\":\"" + Hex(cseed) + "\"}", day};
    auto cid = db.UpsertCampaign(c);
    check(cid.status());
    std::vector<int64_t> boards;
    for (int b = 0; b < 2; ++b) {
      auto id = db.UpsertBoard({"remote:sim", "sim-" + std::to_string(night) + "-" +
                                                  std::to_string(b), "{\"slot\":0}"});
      check(id.status());
      boards.push_back(*id);
    }
    std::vector<RunWrite> batch;
    std::vector<uint64_t> red_indices;
    const auto flush = [&](bool replays) {
      auto ids = db.RecordRuns(batch);
      check(ids.status());
      if (replays) {
        std::vector<RunWrite> reps;
        for (size_t k = 0; k < batch.size(); ++k) {
          if (batch[k].run.status != RunStatus::kRed || rng.Below(10) != 0) continue;
          RunWrite w = batch[k];
          w.run.replay_of = (*ids)[k];
          w.run.started_at = std::string(day).substr(0, 11) + "23:59:59Z";
          w.earlier_attempts.clear();
          reps.push_back(std::move(w));
        }
        check(db.RecordRuns(reps).status());
        written += reps.size();
      }
      written += batch.size();
      batch.clear();
    };
    for (uint64_t i = 0; i < runs; ++i) {
      const bool control = i < 8;  // the nightly controls come first, as the soak runs them
      std::vector<std::string> values;
      for (const Axis& a : Axes()) values.push_back(Draw(a, rng));
      const bool shallow = rng.Below(4) == 0;
      const uint64_t rseed = rng.Next();
      RunWrite w;
      RunRecord& r = w.run;
      r.campaign_id = *cid;
      r.index = control ? 1000000000000ULL + i : i;
      r.seed = rseed;
      r.config_json = Config(r.index, rseed, shallow ? "ntrace-shallow" : "ntrace-slim", values,
                             rng, control ? ",\"control\":{\"name\":\"c" + std::to_string(i) +
                                                "\",\"round\":0,\"expect_red\":[],\"twin\":false}"
                                          : "");
      const uint64_t roll = rng.Below(1000);
      r.status = control ? RunStatus::kGreen
                 : roll < 20 ? RunStatus::kRed
                 : roll < 30 ? RunStatus::kInvalid
                 : roll < 35 ? RunStatus::kInfra
                             : RunStatus::kGreen;
      r.image_name = shallow ? "ntrace-shallow" : "ntrace-slim";
      r.image_sha256 = shallow ? shallow_sha : slim_sha;
      r.board_id = boards[i % 2];
      const uint64_t fabric = std::strtoull(values[7].c_str(), nullptr, 10) * 1000000;
      r.fabric = {fabric, fabric, fabric};
      r.sink = {100000000, 100000000, 100000000};
      char at[32];
      std::snprintf(at, sizeof at, "%.11s%02" PRIu64 ":%02" PRIu64 ":%02" PRIu64 "Z", day,
                    22 + i * 5 / 3600 % 2, i * 5 / 60 % 60, i * 5 % 60);
      r.started_at = at;
      r.wall_ms = static_cast<int64_t>(1000 + rng.Below(8000));
      if (r.status == RunStatus::kInfra) {
        r.infra_cause = rng.Below(2) ? "board_died" : "board_timeout";
        r.metrics_json = "{\"status_reason\":\"board: the board process exited (signal 9)\"}";
      } else {
        r.stream_sha256 = Sha(rng);
        r.stream_size = 50000 + rng.Below(200000);
        r.counters_json = "{\"bytes\":148551,\"control\":25395257,\"halfwords_retired\":633457,"
                          "\"messages\":54755,\"overflow_episodes\":0,\"records_dropped\":0,"
                          "\"status\":1,\"te_empty\":true,\"drained\":true,"
                          "\"drain_sink_cycles\":16,\"bytes_received\":148551,"
                          "\"ring_wrapped\":false,\"max_ready_stall_sink_cycles\":9}";
        const uint64_t episodes = values[0] == "none" ? 0 : rng.Below(2000);
        const std::string reason =
            r.status == RunStatus::kRed ? ",\"status_reason\":\"post_recovery_losslessness fail\""
            : r.status == RunStatus::kInvalid ? ",\"status_reason\":\"capture ring wrapped\""
                                              : "";
        r.metrics_json = Metrics(episodes, rng,
                                 reason + (control ? ",\"control\":{\"passed\":true,"
                                                     "\"observed_red\":[],\"reason\":\"\"}"
                                                   : ""));
        if (r.status != RunStatus::kInfra) w.verdicts = Verdicts(r.status == RunStatus::kRed, rng);
        if (r.status == RunStatus::kRed) w.stream = std::vector<uint8_t>(4096, 0x5a);
      }
      if (!control && rng.Below(100) == 0) {
        w.earlier_attempts.push_back(AttemptRecord{boards[(i + 1) % 2], RunStatus::kInfra,
                                                   "board_died", "board exited", true, at, 900});
      }
      batch.push_back(std::move(w));
      if (batch.size() == 2000) flush(true);
    }
    if (!batch.empty()) flush(true);
    std::fprintf(stderr, "night %" PRIu64 "/%" PRIu64 ": %" PRIu64 " rows\n", night + 1, nights,
                 written);
  }
  const double s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%" PRIu64 " run rows (%" PRIu64 " nights of %" PRIu64 " runs, replays included) "
              "in %.1f s: %s, %ju bytes\n",
              written, nights, runs, s, path.c_str(),
              static_cast<uintmax_t>(std::filesystem::file_size(path)));
  return 0;
}
