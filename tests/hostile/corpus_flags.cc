// The hostile corpus: nonsense numbers, durations and clocks in flags (see corpus.h).
#include "tests/hostile/corpus.h"

namespace ctte::hostile::corpus {

// --- flags: nonsense numbers, durations and clocks -----------------------------------------

// One "flags" case per row: `base` and the row's flags; the message must name one of
// `locate(row flags)`.
void Corpus::FlagCases(const std::string& prefix, const Strings& base, const FlagRows& rows,
                       const std::function<Strings(const Strings&)>& locate,
                       const Setup& setup, const std::vector<PathCheck>& after) {
  for (const auto& [name, extra] : rows) {
    Case c;
    c.id = prefix + name;
    c.cls = "flags";
    Strings args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    c.argv = Lab(args);
    c.setup = setup;
    c.locators = {locate(extra)};
    c.after = after;
    Add(std::move(c));
  }
}


void Corpus::Flags() {
  const auto spec = Copy({Fx("tiny.json")}, {"tiny.json"});
  FlagCases("flags.soak.", SoakArgs("tiny.json"),
            {
                {"runs-neg", {"--runs", "-1"}},
                {"runs-zero", {"--runs", "0"}},
                {"runs-huge", {"--runs", "18446744073709551615"}},
                {"runs-text", {"--runs", "abc"}},
                {"budget-empty", {"--budget", ""}},
                {"budget-3000000h", {"--budget", "3000000h"}},
                {"budget-digits", {"--budget", "99999999999999999999h"}},
                {"budget-zero", {"--budget", "0s"}},
                {"budget-neg", {"--budget", "-1h"}},
                {"budget-unit", {"--budget", "2x"}},
                {"boards-zero", {"--boards", "0"}},
                {"boards-neg", {"--boards", "-1"}},
                {"boards-huge", {"--boards", "1000000"}},
                {"seed-neg", {"--seed", "-1"}},
                {"seed-bad-hex", {"--seed", "0xZZ"}},
                {"seed-empty", {"--seed", ""}},
                {"store-streams", {"--store-streams", "bogus"}},
                {"retry-infra-no-resume", {"--retry-infra"}},
            },
            FirstFlag, spec);
  FlagCases("flags.soak.", SoakArgs("tiny.json"), {{"resume-unknown", {"--resume", "nope"}}},
            [](const Strings&) { return Strings{"--resume", "campaign nope"}; }, spec);
  FlagCases("flags.draw.", {"campaign", "draw", "tiny.json"},
            {
                {"count-neg", {"--count", "-1"}},
                {"count-huge", {"--count", "18446744073709551615"}},
                {"count-text", {"--count", "1e400"}},
                {"start-neg", {"--count", "2", "--start", "-1"}},
                {"start-huge", {"--count", "2", "--start", "18446744073709551615"}},
            },
            LastFlag, spec);
  FlagCases("flags.plan.", {"campaign", "plan", "tiny.json", "--db", "plan.db"},
            {{"count-neg", {"--count", "-1"}}}, FirstFlag, spec);
  // One configuration on a board: clocks, IPC, ring, budgets.
  const Strings run = {"run", "--image", Manifest(), "--workload", Elf()};
  FlagCases("flags.run.", run,
            {
                {"fabric-nan", {"--fabric-mhz", "nan"}},
                {"fabric-inf", {"--fabric-mhz", "inf"}},
                {"fabric-neg", {"--fabric-mhz", "-1"}},
                {"fabric-1e400", {"--fabric-mhz", "1e400"}},
                {"fabric-huge", {"--fabric-mhz", "1e300"}},
                {"sink-nan", {"--sink-mhz", "nan"}},
                {"sink-zero", {"--sink-mhz", "0"}},
                {"sink-neg", {"--sink-mhz", "-5"}},
                {"ipc-nan", {"--ipc", "nan"}},
                {"ipc-zero", {"--ipc", "0"}},
                {"ipc-two", {"--ipc", "2"}},
                {"ipc-neg", {"--ipc", "-1"}},
                {"sync-period-neg", {"--sync-mode", "messages", "--sync-period", "-1"}},
                {"sync-period-3", {"--sync-mode", "messages", "--sync-period", "3"}},
                {"ring-zero", {"--ring-bytes", "0"}},
                {"ring-huge", {"--ring-bytes", "18446744073709551615"}},
                {"max-instructions-neg", {"--max-instructions", "-1"}},
                {"interrupt-every-neg", {"--interrupt-every", "-1"}},
                {"drain-budget-neg", {"--drain-budget", "-1"}},
                {"seed-neg", {"--seed", "-1"}},
                {"mode-bogus", {"--mode", "bogus"}},
                {"sync-mode-bogus", {"--sync-mode", "bogus"}},
                {"backpressure-uniform-0", {"--backpressure", "uniform:0"}},
                {"backpressure-uniform-101", {"--backpressure", "uniform:101"}},
                {"backpressure-uniform-nan", {"--backpressure", "uniform:nan"}},
                {"backpressure-bursty-reversed", {"--backpressure", "bursty:5-1:1-1"}},
                {"backpressure-bursty-overflow",
                 {"--backpressure", "bursty:1-18446744073709551616:1-1"}},
                {"waves-fifo", {"--waves", "w.fst"}},
            },
            LastFlag, [](const std::string& dir, const std::string&) {
              MakeFifo(dir + "/w.fst");  // only the waves-fifo row names it
            });
  FlagCases("flags.run.", run,
            {
                {"window-start-neg", {"--window-start", "-1"}},
                {"resume-before-pause", {"--pause", "100", "--resume", "50"}},
                {"stop-neg", {"--stop", "-1"}},
            },
            [](const Strings& extra) {
              return Strings{extra[0], extra[extra.size() - 2], extra[0].substr(2)};
            });
  FlagCases("flags.capture.",
            {"capture", "--image", Manifest(), "--workload", Elf(), "--out", "o.bin"},
            {{"fabric-nan", {"--fabric-mhz", "nan"}}}, FirstFlag, nullptr,
            {{"o.bin", K::kAbsent}});
  FlagCases("flags.iss.", {"iss", Elf()},
            {
                {"max-instructions-neg", {"--max-instructions", "-1"}},
                {"interrupt-every-neg", {"--interrupt-every", "-1"}},
                {"interrupts-bogus", {"--interrupts", "bogus"}},
            },
            FirstFlag);
  FlagCases("flags.encode.", {"encode", Elf(), "--out", "t.bin"},
            {
                {"icnt-bits-zero", {"--icnt-bits", "0"}},
                {"icnt-bits-23", {"--icnt-bits", "23"}},
                {"icnt-bits-neg", {"--icnt-bits", "-1"}},
                {"sync-period-neg", {"--sync-mode", "messages", "--sync-period", "-1"}},
                {"sync-period-5", {"--sync-mode", "messages", "--sync-period", "5"}},
                {"mode-bogus", {"--mode", "bogus"}},
                {"max-instructions-neg", {"--max-instructions", "-1"}},
            },
            LastFlag, nullptr, {{"t.bin", K::kAbsent}});
  FlagCases("flags.workload.", {"workload", "gen", "--out", "w.elf"},
            {
                {"seed-neg", {"--seed", "-1"}},
                {"seed-bad", {"--seed", "0xZZ"}},
                {"size-neg", {"--seed", "1", "--size", "-1"}},
                {"size-huge", {"--seed", "1", "--size", "18446744073709551615"}},
                {"size-zero", {"--seed", "1", "--size", "0"}},
                {"loop-depth-99", {"--seed", "1", "--loop-depth", "99"}},
                {"call-depth-huge", {"--seed", "1", "--call-depth", "1000000"}},
                {"indirect-5000", {"--seed", "1", "--indirect-per-mille", "5000"}},
                {"compressed-200", {"--seed", "1", "--compressed-percent", "200"}},
                {"max-dynamic-neg", {"--seed", "1", "--max-dynamic", "-1"}},
            },
            LastFlag, nullptr, {{"w.elf", K::kAbsent}});
  for (const char* cmd : {"show", "replay"}) {
    for (const auto& [name, id] : std::vector<std::pair<std::string, std::string>>{
             {"text", "abc"}, {"neg", "-1"}, {"zero", "0"},
             {"overflow", "99999999999999999999"}, {"unknown", "12345"}}) {
      Case c;
      c.id = std::string("flags.") + cmd + ".run-" + name;
      c.cls = "flags";
      Strings args = {cmd, id, "--db", "run.db"};
      if (std::string(cmd) == "replay") {
        for (auto& s : Dirs()) args.push_back(s);
        args.push_back("--board");
        args.push_back(env_.board);
      }
      c.argv = Lab(args);
      c.setup = Copy({Fx("run.db")}, {"run.db"});
      c.locators = {{id, "run"}};
      Add(std::move(c));
    }
  }
  for (const auto& [name, campaign] : std::vector<std::pair<std::string, std::string>>{
           {"empty", ""}, {"unknown", "nope"}}) {
    Case c;
    c.id = "flags.report.campaign-" + name;
    c.cls = "flags";
    c.argv = Lab({"report", campaign, "--db", "run.db", "--csv", "r.csv"});
    c.setup = Copy({Fx("run.db")}, {"run.db"});
    c.locators = {{"campaign"}};
    c.after = {{"r.csv", K::kAbsent}};
    Add(std::move(c));
  }
}

}  // namespace ctte::hostile::corpus
