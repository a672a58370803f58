// The hostile corpus: every bad input, generated here at test time (nothing is checked in but
// this file). Classes: spec, config, stored, flags, output, stream, elf, manifest, db, board.
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/hostile/hostile.h"

namespace ctte::hostile {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;
using Strings = std::vector<std::string>;
using K = PathCheck::Kind;

constexpr const char* kBom = "\xEF\xBB\xBF";

// Deterministic garbage (xorshift), so a failing case is the same bytes on every run.
std::string Garbage(size_t n, uint64_t seed) {
  std::string s(n, '\0');
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (char& c : s) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    c = static_cast<char>(x & 0xFF);
  }
  return s;
}

// `text` with the first `from` replaced by `to` (the corpus edits valid JSON as text, so that
// it can write what nlohmann would never print: 1e400, duplicate keys).
std::string Replace(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  if (at == std::string::npos) {  // the corpus is out of date with the fixture
    throw std::runtime_error("corpus: \"" + from + "\" not found in the fixture");
  }
  return text.replace(at, from.size(), to);
}

std::string U32le(uint32_t v) {
  std::string s(4, '\0');
  for (int i = 0; i < 4; ++i) s[static_cast<size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xFF);
  return s;
}

std::string Frame(const std::string& header, const std::string& payload = "") {
  return "CTB1" + U32le(static_cast<uint32_t>(header.size())) +
         U32le(static_cast<uint32_t>(payload.size())) + header + payload;
}


// A bad input file: either content, or a kind of non-file.
struct Input {
  std::string name;
  std::string content;
  enum class Kind {
    kContent, kDevZero, kFifo, kDirectory, kMissing, kSymlinkDevZero, kDevZeroTwin
  } kind = Kind::kContent;
};

bool IsContent(const Input& in) { return in.kind == Input::Kind::kContent; }

void MakeInput(const Input& in, const std::string& path) {
  switch (in.kind) {
    case Input::Kind::kContent: WriteText(path, in.content); break;
    case Input::Kind::kFifo: MakeFifo(path); break;
    case Input::Kind::kDirectory: fs::create_directory(path); break;
    case Input::Kind::kSymlinkDevZero: Symlink("/dev/zero", path); break;
    case Input::Kind::kDevZeroTwin:
      if (::mknod(path.c_str(), S_IFCHR | 0666, makedev(1, 5)) != 0) {
        throw std::runtime_error("mknod failed");
      }
      break;
    case Input::Kind::kDevZero:
    case Input::Kind::kMissing: break;
  }
}

std::string InputPath(const Input& in, const std::string& file) {
  return in.kind == Input::Kind::kDevZero ? "/dev/zero" : file;
}

// The kinds of non-file every file input is tried with.
std::vector<Input> FileKinds() {
  return {{"devzero", "", Input::Kind::kDevZero},
          {"fifo", "", Input::Kind::kFifo},
          {"dir", "", Input::Kind::kDirectory},
          {"missing", "", Input::Kind::kMissing},
          {"symlink-devzero", "", Input::Kind::kSymlinkDevZero}};
}

// JSON-level attacks that apply to any JSON document `valid`.
std::vector<Input> JsonAttacks(const std::string& valid) {
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  return {
      {"bom", kBom + valid},
      {"utf8", Replace(valid, "\"", "\"\xFF")},
      {"truncated", valid.substr(0, valid.size() / 2)},
      {"empty", ""},
      {"whitespace", "  \n\t\n"},
      {"null", "null"},
      {"array", "[]"},
      {"deep", deep},
      {"trailing-garbage", valid + " x"},
      {"nul-byte", Replace(valid, "{", std::string("{\0", 2))},
      {"comment", "// note\n" + valid},
      {"garbage", Garbage(4096, 7)},
      {"too-big", std::string(17 << 20, ' ') + valid},
  };
}

class Corpus {
 public:
  explicit Corpus(const Env& env) : env_(env) {}

  std::vector<Case> Build() {
    Specs();
    Configs();
    Stored();
    Flags();
    Outputs();
    Streams();
    Elfs();
    Manifests();
    Databases();
    Board();
    return std::move(cases_);
  }

 private:
  std::string Fx(const std::string& name) const { return env_.fixtures + "/" + name; }
  std::string Manifest() const { return env_.images + "/ntrace-slim.manifest.json"; }
  std::string Elf() const { return env_.workloads + "/loop.elf"; }
  Strings Lab(Strings args) const {
    args.insert(args.begin(), env_.lab);
    return args;
  }
  Strings Dirs() const {
    return {"--image-dir", env_.images, "--workload-dir", env_.workloads};
  }
  Strings SoakArgs(const std::string& spec) const {
    Strings a = {"soak", spec, "--db", "soak.db", "--report-dir", "reports"};
    for (auto& s : Dirs()) a.push_back(s);
    a.push_back("--board");
    a.push_back(env_.board);
    return a;
  }
  Case& Add(Case c) {
    cases_.push_back(std::move(c));
    return cases_.back();
  }
  // Copies fixture files into the case folder before anything else.
  static std::function<void(const std::string&, const std::string&)> Copy(
      Strings from, Strings to,
      std::function<void(const std::string&, const std::string&)> then = nullptr) {
    return [from, to, then](const std::string& dir, const std::string& outside) {
      for (size_t i = 0; i < from.size(); ++i) CopyFile(from[i], dir + "/" + to[i]);
      if (then) then(dir, outside);
    };
  }

  // --- spec: campaign specs through check, draw, plan and soak --------------------------------
  void Specs() {
    std::vector<Input> specs = {
        {"runs-1e400", Replace(kTinySpec, "\"runs\": 2", "\"runs\": 1e400")},
        {"runs-neg1e400", Replace(kTinySpec, "\"runs\": 2", "\"runs\": -1e400")},
        {"runs-neg", Replace(kTinySpec, "\"runs\": 2", "\"runs\": -1")},
        {"runs-zero", Replace(kTinySpec, "\"runs\": 2", "\"runs\": 0")},
        {"runs-huge", Replace(kTinySpec, "\"runs\": 2", "\"runs\": 18446744073709551615")},
        {"runs-overflow", Replace(kTinySpec, "\"runs\": 2", "\"runs\": 99999999999999999999")},
        {"runs-float", Replace(kTinySpec, "\"runs\": 2", "\"runs\": 2.0")},
        {"seed-1e400", Replace(kTinySpec, "\"seed\": 1", "\"seed\": 1e400")},
        {"seed-overflow", Replace(kTinySpec, "\"seed\": 1", "\"seed\": 18446744073709551616")},
        {"horizon-1e400", Replace(kTinySpec, ": 64", ": 1e400")},
        {"horizon-huge", Replace(kTinySpec, ": 64", ": 18446744073709551615")},
        {"pairs-neg1e400",
         Replace(kTinySpec, "\"axes\"", "\"determinism_pairs\": -1e400, \"axes\"")},
        {"pairs-2", Replace(kTinySpec, "\"axes\"", "\"determinism_pairs\": 2, \"axes\"")},
        {"fabric-neg", Replace(kTinySpec, "\"fabric_mhz\": 90", "\"fabric_mhz\": -1")},
        {"fabric-1e400", Replace(kTinySpec, "\"fabric_mhz\": 90", "\"fabric_mhz\": 1e400")},
        {"fabric-nan-text", Replace(kTinySpec, "\"fabric_mhz\": 90", "\"fabric_mhz\": \"nan\"")},
        {"weight-1e400", Replace(kTinySpec, "[\"loop\"]", "[{\"value\": \"loop\", \"weight\": 1e400}]")},
        {"weight-huge",
         Replace(kTinySpec, "[\"loop\"]",
                 "[{\"value\": \"loop\", \"weight\": 18446744073709551615}]")},
        {"dup-name", Replace(kTinySpec, "{", "{\"name\": \"other\", ")},
        {"dup-axes", Replace(kTinySpec, "\"axes\"", "\"axes\": {}, \"axes\"")},
        {"dup-axis", Replace(kTinySpec, "[\"loop\"]", "[\"loop\"], \"workload\": [\"calls\"]")},
        {"dup-weight",
         Replace(kTinySpec, "[\"loop\"]", "[{\"value\": \"loop\", \"weight\": 1, \"weight\": 2}]")},
        {"wrong-types", R"({"name": 5, "seed": true, "runs": "12", "images": "ntrace-slim"})"},
        {"unknown-keys", Replace(kTinySpec, "\"axes\"", "\"colour\": 1, \"axes\"")},
        {"budget-3000000h", Replace(kTinySpec, "\"runs\": 2", "\"budget\": \"3000000h\"")},
        {"budget-digits",
         Replace(kTinySpec, "\"runs\": 2", "\"budget\": \"99999999999999999999h\"")},
        {"budget-empty", Replace(kTinySpec, "\"runs\": 2", "\"budget\": \"\"")},
        {"name-10mb", Replace(kTinySpec, "\"tiny\"", "\"" + std::string(10 << 20, 'a') + "\"")},
    };
    {
      std::string many = "[";
      for (int i = 0; i < 300000; ++i) many += (i ? ",\"x" : "\"x") + std::to_string(i) + "\"";
      specs.push_back({"many-errors", Replace(kTinySpec, "[\"loop\"]", many + "]")});
    }
    for (auto& in : JsonAttacks(std::string(kTinySpec))) specs.push_back(in);
    for (auto& in : FileKinds()) specs.push_back(in);

    for (const Input& in : specs) {
      const std::string path = InputPath(in, "spec.json");
      const auto shared = std::make_shared<const Input>(in);
      const auto setup = [shared](const std::string& dir, const std::string&) {
        MakeInput(*shared, dir + "/spec.json");
      };
      std::vector<std::vector<std::string>> loc = {{"spec.json", "/dev/zero"}};
      if (IsContent(in)) loc.push_back({"$", "byte"});
      struct Cmd {
        const char* name;
        Strings args;
      };
      std::vector<Cmd> cmds = {{"check", {"campaign", "check", path}},
                               {"soak", SoakArgs(path)}};
      if (IsContent(in)) {
        cmds.push_back({"draw", {"campaign", "draw", path, "--count", "1"}});
        cmds.push_back({"plan", {"campaign", "plan", path, "--db", "plan.db"}});
      }
      for (const Cmd& cmd : cmds) {
        Case c;
        c.id = std::string("spec.") + cmd.name + "." + in.name;
        c.cls = "spec";
        c.argv = Lab(cmd.args);
        c.setup = setup;
        c.locators = loc;
        if (cmd.args[1] == "plan") {  // a budget spec is refused for its missing --count
          for (auto& group : c.locators) group.push_back("--count");
        }
        if (cmd.args[0] == "soak") c.after = {{"soak.db", K::kAbsent}};
        Add(std::move(c));
      }
    }
  }

  // --- config: run --config RUNCONFIG ---------------------------------------------------------
  // Edits of a valid RunConfig that both `run --config` and a stored config (replay, show) get.
  static std::vector<Input> ConfigEdits(const std::string& valid) {
    return {
        {"fabric-1e400", Replace(valid, "\"fabric_hz\":", "\"fabric_hz\":1e400,\"x\":")},
        {"fabric-neg", Replace(valid, "\"fabric_hz\":", "\"fabric_hz\":-1,\"x\":")},
        {"seed-bad", Replace(valid, "\"seed\":\"0x", "\"seed\":\"0xZZ")},
        {"dup-image", Replace(valid, "\"image\":", "\"image\":\"ntrace-shallow\",\"image\":")},
    };
  }

  void Configs() {
    const std::string valid = ReadText(Fx("config.json"));
    std::vector<Input> configs = ConfigEdits(valid);
    for (Input in : std::vector<Input>{
        {"sink-zero", Replace(valid, "\"sink_hz\":", "\"sink_hz\":0,\"x\":")},
        {"index-neg", Replace(valid, "\"index\":", "\"index\":-1,\"x\":")},
        {"index-1e400", Replace(valid, "\"index\":", "\"index\":1e400,\"x\":")},
        {"stall-1e400",
         Replace(valid, "\"core_stall_percent\":", "\"core_stall_percent\":1e400,\"x\":")},
        {"interrupt-every-neg",
         Replace(valid, "\"interrupt_every\":", "\"interrupt_every\":-1,\"x\":")},
        {"interrupt-at-1e400", Replace(valid, "\"interrupt_at\":[", "\"interrupt_at\":[1e400,")},
        {"dup-window-start", Replace(valid, "\"start\":", "\"start\":1,\"start\":")},
        {"image-unknown", Replace(valid, "\"ntrace-slim\"", "\"nope\"")},
        {"wrong-type", Replace(valid, "\"axes\":", "\"axes\":5,\"y\":")},
         }) {
      configs.push_back(std::move(in));
    }
    for (auto& in : JsonAttacks(valid)) configs.push_back(in);
    for (auto& in : FileKinds()) configs.push_back(in);
    for (const Input& in : configs) {
      Case c;
      c.id = "config.run." + in.name;
      c.cls = "config";
      Strings args = {"run", "--config", InputPath(in, "cfg.json")};
      for (auto& s : Dirs()) args.push_back(s);
      c.argv = Lab(args);
      c.setup = [shared = std::make_shared<const Input>(in)](const std::string& dir,
                                                             const std::string&) {
        MakeInput(*shared, dir + "/cfg.json");
      };
      c.locators = {{"cfg.json", "--config", "/dev/zero", "nope.manifest.json"}};
      if (IsContent(in) && in.name != "image-unknown") c.locators.push_back({"$", "byte"});
      Add(std::move(c));
    }
  }

  // --- stored: a database whose stored RunConfig is hostile (replay, show) -------------------
  void Stored() {
    if (!env_.have_sqlite3) return;
    const std::string valid = ReadText(Fx("config.json"));
    std::vector<Input> stored = ConfigEdits(valid);
    stored.push_back({"not-object", "[1, 2]"});
    for (const Input& edit : stored) {
      const std::string& name = edit.name;
      const std::string& text = edit.content;
      std::string sql_text;  // SQL string literal
      for (char ch : text) sql_text += ch == '\'' ? std::string("''") : std::string(1, ch);
      const auto setup = Copy({Fx("run.db")}, {"run.db"},
                              [sql_text](const std::string& dir, const std::string&) {
                                WriteText(dir + "/edit.sql",
                                          "UPDATE runs SET config_json = '" + sql_text + "';\n");
                                const std::string cmd = "cd '" + dir +
                                                        "' && sqlite3 run.db < edit.sql";
                                if (std::system(cmd.c_str()) != 0) {
                                  throw std::runtime_error("sqlite3 could not store the config");
                                }
                              });
      for (const char* cmd : {"replay", "show"}) {
        Case c;
        c.id = std::string("stored.") + cmd + "." + name;
        c.cls = "stored";
        Strings args = {cmd, "1", "--db", "run.db"};
        if (std::string(cmd) == "replay") {
          for (auto& s : Dirs()) args.push_back(s);
          args.push_back("--board");
          args.push_back(env_.board);
        }
        c.argv = Lab(args);
        c.setup = setup;
        c.locators = {{"run 1", "config", "run.db"}, {"$", "byte"}};
        // show may display a damaged run (exit 0); replay must refuse to run it.
        if (std::string(cmd) == "show") c.exits = {0, 2};
        Add(std::move(c));
      }
    }
  }

  // --- flags: nonsense numbers, durations and clocks -----------------------------------------
  using FlagRows = std::vector<std::pair<std::string, Strings>>;
  using Setup = std::function<void(const std::string&, const std::string&)>;

  // One "flags" case per row: `base` and the row's flags; the message must name one of
  // `locate(row flags)`.
  void FlagCases(const std::string& prefix, const Strings& base, const FlagRows& rows,
                 const std::function<Strings(const Strings&)>& locate, const Setup& setup = nullptr,
                 const std::vector<PathCheck>& after = {}) {
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
  static Strings FirstFlag(const Strings& extra) { return {extra[0]}; }
  static Strings LastFlag(const Strings& extra) { return {extra[extra.size() - 2]}; }

  void Flags() {
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

  // --- output: a FIFO, a symlink, a device, a folder or a missing parent at an output path ---
  void Outputs() {
    struct Target {
      std::string name;
      std::function<void(const std::string& dir, const std::string& outside, const std::string&)>
          make;
      std::string path;  // as passed on the command line
      PathCheck after;
    };
    std::vector<Target> targets = {
        {"fifo", [](auto& dir, auto&, auto& p) { MakeFifo(dir + "/" + p); }, "out.x",
         {"out.x", K::kFifo}},
        {"symlink", [](auto& dir, auto& outside, auto& p) {
           Symlink(outside + "/victim.txt", dir + "/" + p);
         }, "out.x", {"out.x", K::kSymlink}},
        {"directory", [](auto& dir, auto&, auto& p) { fs::create_directory(dir + "/" + p); },
         "out.x", {"out.x", K::kDirectory}},
        {"missing-parent", [](auto&, auto&, auto&) {}, "nodir/out.x", {"nodir", K::kAbsent}},
    };
    if (::geteuid() == 0) {  // a private /dev/full twin in the case folder
      targets.push_back({"device", [](auto& dir, auto&, auto& p) {
                           if (::mknod((dir + "/" + p).c_str(), S_IFCHR | 0666, makedev(1, 7)) !=
                               0) {
                             throw std::runtime_error("mknod failed");
                           }
                         }, "out.x", {"out.x", K::kCharDevice}});
    }
    struct Writer {
      std::string name;
      std::function<Strings(const std::string& path)> args;
      Strings fixtures;  // copied into the case folder
      int timeout_s = 0;
    };
    const Strings board = {"--board", env_.board};
    std::vector<Writer> writers = {
        {"report-csv", [](auto& p) { return Strings{"report", "tiny", "--db", "run.db", "--csv", p}; },
         {"run.db"}},
        {"report-html",
         [](auto& p) { return Strings{"report", "tiny", "--db", "run.db", "--html", p}; },
         {"run.db"}},
        {"report-junit",
         [](auto& p) { return Strings{"report", "tiny", "--db", "run.db", "--junit", p}; },
         {"run.db"}},
        {"encode-out", [this](auto& p) { return Strings{"encode", Elf(), "--out", p}; }, {}},
        {"iss-pcs", [this](auto& p) { return Strings{"iss", Elf(), "--pcs", p}; }, {}},
        {"decode-pcs",
         [this](auto& p) { return Strings{"decode", "loop.bin", "--elf", Elf(), "--pcs", p}; },
         {"loop.bin"}},
        {"capture-out",
         [this](auto& p) {
           return Strings{"capture", "--image", Manifest(), "--workload", Elf(), "--out", p};
         },
         {}},
        {"capture-expected-pcs",
         [this](auto& p) {
           return Strings{"capture", "--image", Manifest(), "--workload", Elf(), "--out",
                          "ok.bin", "--expected-pcs", p};
         },
         {}},
        {"workload-out",
         [](auto& p) { return Strings{"workload", "gen", "--seed", "1", "--out", p}; }, {}},
        {"run-stream-out",
         [this](auto& p) {
           return Strings{"run", "--image", Manifest(), "--workload", Elf(), "--stream-out", p};
         },
         {}},
        {"replay-waves",
         [this](auto& p) {
           Strings a = {"replay", "1", "--db", "run.db", "--waves", p, "--board", env_.board};
           for (auto& s : Dirs()) a.push_back(s);
           return a;
         },
         {"run.db"}},
        {"plan-db",
         [](auto& p) { return Strings{"campaign", "plan", "tiny.json", "--db", p}; },
         {"tiny.json"}},
        {"soak-db",
         [this](auto& p) {
           Strings a = SoakArgs("tiny.json");
           a[3] = p;  // --db
           a.push_back("--runs");
           a.push_back("1");
           return a;
         },
         {"tiny.json"}},
        {"soak-report-dir",
         [this](auto& p) {
           Strings a = SoakArgs("tiny.json");
           a[5] = p;  // --report-dir
           a.push_back("--runs");
           a.push_back("1");
           return a;
         },
         {"tiny.json"}},
    };
    for (const Writer& w : writers) {
      for (const Target& t : targets) {
        const bool dir_output = w.name == "soak-report-dir";
        if (dir_output && t.name == "directory") continue;  // a folder is what it wants
        Case c;
        c.id = "output." + w.name + "." + t.name;
        c.cls = "output";
        c.argv = Lab(w.args(t.path));
        Strings from, to;
        for (const auto& f : w.fixtures) {
          from.push_back(Fx(f));
          to.push_back(f);
        }
        const auto make = t.make;
        const std::string path = t.path;
        c.setup = Copy(from, to, [make, path](const std::string& dir, const std::string& outside) {
          make(dir, outside, path);
        });
        c.locators = {{t.name == "missing-parent" ? "nodir" : "out.x"}};
        c.after = {t.after};
        Add(std::move(c));
      }
    }
  }

  // --- stream: decode on damaged traces --------------------------------------------------------
  void Streams() {
    const std::string trace = ReadText(Fx("loop.bin"));
    std::vector<Input> streams = {
        {"empty", ""},
        {"one-byte", "\x01"},
        {"truncated", trace.substr(0, trace.size() / 2)},
        {"garbage", Garbage(4096, 11)},
        {"all-ff", std::string(4096, '\xFF')},
        {"all-zero", std::string(4096, '\0')},
        {"repeated", trace + trace + Garbage(100, 3) + trace},
    };
    for (auto& in : FileKinds()) streams.push_back(in);
    for (const Input& in : streams) {
      for (const bool messages : {false, true}) {
        if (messages && !IsContent(in)) continue;
        Case c;
        c.id = std::string("stream.decode") + (messages ? "-messages." : ".") + in.name;
        c.cls = "stream";
        Strings args = {"decode", InputPath(in, "t.bin"), "--elf", Elf()};
        if (messages) args.push_back("--messages");
        c.argv = Lab(args);
        c.setup = [in](const std::string& dir, const std::string&) {
          MakeInput(in, dir + "/t.bin");
        };
        // A damaged stream is decoded with its errors counted (exit 0 or 1: errors found) or
        // refused (exit 2).
        if (IsContent(in)) c.exits = {0, 1, 2};
        c.locators = {{"t.bin", "/dev/zero", "byte", "offset", "decode error"}};
        Add(std::move(c));
      }
    }
  }

  // --- elf: commands that load a program image ------------------------------------------------
  void Elfs() {
    const std::string elf = ReadText(Elf());
    std::vector<Input> elfs = {
        {"empty", ""},
        {"garbage", Garbage(8192, 5)},
        {"truncated", elf.substr(0, 1024)},
        {"header-only", elf.substr(0, 64)},
        {"text", "#!/bin/sh\necho not an elf\n"},
    };
    for (auto& in : FileKinds()) elfs.push_back(in);
    for (const Input& in : elfs) {
      struct Cmd {
        const char* name;
        Strings args;
      };
      const std::string p = InputPath(in, "p.elf");
      for (const Cmd& cmd : std::vector<Cmd>{
               {"iss", {"iss", p}},
               {"encode", {"encode", p, "--out", "t.bin"}},
               {"decode", {"decode", "loop.bin", "--elf", p}},
               {"run", {"run", "--image", Manifest(), "--workload", p}}}) {
        Case c;
        c.id = std::string("elf.") + cmd.name + "." + in.name;
        c.cls = "elf";
        c.argv = Lab(cmd.args);
        c.setup = Copy({Fx("loop.bin")}, {"loop.bin"},
                       [in](const std::string& dir, const std::string&) {
                         MakeInput(in, dir + "/p.elf");
                       });
        c.locators = {{"p.elf", "/dev/zero"}};
        Add(std::move(c));
      }
    }
  }

  // --- manifest: run --image with a damaged image manifest -----------------------------------
  void Manifests() {
    const std::string valid = ReadText(Manifest());
    const auto field = [&](const std::string& key) { return "\"" + key + "\": "; };
    const auto drop = [&](const std::string& key) {
      Json j = Json::parse(valid);
      j.erase(key);
      return j.dump(2);
    };
    std::vector<Input> manifests = {
        {"fmax-neg", Replace(valid, field("fmax_mhz"), field("fmax_mhz") + "-1, \"x\": ")},
        {"fmax-zero", Replace(valid, field("fmax_mhz"), field("fmax_mhz") + "0, \"x\": ")},
        {"fmax-1e400", Replace(valid, field("fmax_mhz"), field("fmax_mhz") + "1e400, \"x\": ")},
        {"fmax-string",
         Replace(valid, field("fmax_mhz"), field("fmax_mhz") + "\"fast\", \"x\": ")},
        {"fmax-missing", drop("fmax_mhz")},
        {"sha-missing", drop("sha256")},
        {"image-missing", drop("image")},
        {"name-missing", drop("name")},
        {"sha-wrong", Replace(valid, field("sha256") + "\"", field("sha256") + "\"00")},
        {"build-id-bad", Replace(valid, field("build_id") + "\"0x", field("build_id") + "\"0xZZ")},
        {"xlen-1e400", Replace(valid, field("xlen"), field("xlen") + "1e400, \"x\": ")},
        {"caps-neg", Replace(valid, field("caps"), field("caps") + "-1, \"x\": ")},
        {"dup-name", Replace(valid, "{", "{\"name\": \"ntrace-shallow\",")},
        {"image-devzero", Replace(valid, "\"ntrace-slim.so\"", "\"/dev/zero\"")},
        {"image-absent", Replace(valid, "\"ntrace-slim.so\"", "\"absent.so\"")},
        {"image-garbage", Replace(valid, "\"ntrace-slim.so\"", "\"garbage.so\"")},
    };
    for (auto& in : JsonAttacks(valid)) manifests.push_back(in);
    for (auto& in : FileKinds()) manifests.push_back(in);
    const std::string so = env_.images + "/ntrace-slim.so";
    for (const Input& in : manifests) {
      Case c;
      c.id = "manifest.run." + in.name;
      c.cls = "manifest";
      c.argv = Lab({"run", "--image", InputPath(in, "m.json"), "--workload", Elf()});
      c.setup = [shared = std::make_shared<const Input>(in), so](const std::string& dir,
                                                                 const std::string&) {
        MakeInput(*shared, dir + "/m.json");
        Symlink(so, dir + "/ntrace-slim.so");
        WriteText(dir + "/garbage.so", Garbage(20000, 9));
      };
      c.locators = {{"m.json", "/dev/zero", "garbage.so", "absent.so"}};
      // Not a bad input: "image" is optional and defaults to <name>.so beside the manifest
      // (lab/image_manifest.cc, docs/rtl.md), which this case folder holds (the symlink above),
      // so the run is fine. The expectation of exit 2 was wrong.
      if (in.name == "image-missing") c.exits = {0};
      Add(std::move(c));
    }
  }

  // --- db: damaged, foreign, missing and read-only databases ---------------------------------
  void Databases() {
    const std::string db = ReadText(Fx("run.db"));
    std::vector<Input> dbs = {
        {"garbage", Garbage(8192, 13)},
        {"truncated", db.substr(0, db.size() / 2)},
        {"header-only", db.substr(0, 100)},
        {"zeros", std::string(8192, '\0')},
        {"text", "this is not a database\n"},
    };
    // Not /dev/zero itself: SQLite locks the inode, so concurrent cases would collide. As root,
    // a private /dev/zero twin in the case folder instead.
    for (auto& in : FileKinds()) {
      if (in.kind == Input::Kind::kDevZero || in.kind == Input::Kind::kSymlinkDevZero) continue;
      dbs.push_back(in);
    }
    if (::geteuid() == 0) dbs.push_back({"devzero-twin", "", Input::Kind::kDevZeroTwin});
    struct Cmd {
      const char* name;
      Strings args;
      bool reads_only;
    };
    const auto cmds = [this](const std::string& p) {
      Strings replay = {"replay", "1", "--db", p, "--board", env_.board};
      for (auto& s : Dirs()) replay.push_back(s);
      Strings soak = SoakArgs("tiny.json");
      soak[3] = p;
      soak.push_back("--runs");
      soak.push_back("1");
      return std::vector<Cmd>{
          {"history", {"history", "--db", p}, true},
          {"show", {"show", "1", "--db", p}, true},
          {"report", {"report", "tiny", "--db", p, "--csv", "r.csv"}, true},
          {"replay", replay, false},
          {"soak", soak, false},
          {"plan", {"campaign", "plan", "tiny.json", "--db", p}, false},
      };
    };
    for (const Input& in : dbs) {
      const std::string p = InputPath(in, "x.db");
      for (const Cmd& cmd : cmds(p)) {
        if (in.kind == Input::Kind::kMissing && !cmd.reads_only) continue;  // creating is fine
        Case c;
        c.id = std::string("db.") + cmd.name + "." + in.name;
        c.cls = "db";
        c.argv = Lab(cmd.args);
        c.setup = Copy({Fx("tiny.json")}, {"tiny.json"},
                       [in](const std::string& dir, const std::string&) {
                         MakeInput(in, dir + "/x.db");
                       });
        c.locators = {{"x.db", "/dev/zero"}};
        if (in.kind == Input::Kind::kMissing) c.after = {{"x.db", K::kAbsent}};
        Add(std::move(c));
      }
    }
    // Read-only: reading works, writing is refused by name (as nobody when we are root).
    for (const Cmd& cmd : cmds("x.db")) {
      Case c;
      c.id = std::string("db.") + cmd.name + ".read-only";
      c.cls = "db";
      c.argv = Lab(cmd.args);
      c.setup = Copy({Fx("tiny.json"), Fx("run.db")}, {"tiny.json", "x.db"},
                     [](const std::string& dir, const std::string&) {
                       ::chmod((dir + "/x.db").c_str(), 0444);
                       ::chmod(dir.c_str(), 0777);
                     });
      c.unprivileged = true;
      c.exits = cmd.reads_only ? std::vector<int>{0} : std::vector<int>{2};
      if (std::string(cmd.name) == "replay") c.exits = {0, 2};  // records the replay: may refuse
      c.locators = {{"x.db"}};
      Add(std::move(c));
    }
    // Read-only folder (issue #11 item 7): the database file and its folder are read-only (as
    // nobody when we are root, where chmod alone would not stop us): history, show and report
    // open it with Database::OpenReadOnly and work; nothing is created beside it.
    for (const Cmd& cmd : cmds("x.db")) {
      if (!cmd.reads_only) continue;
      Case c;
      c.id = std::string("db.") + cmd.name + ".read-only-folder";
      c.cls = "db";
      Strings args = cmd.args;
      if (std::string(cmd.name) == "report") args.back() = "out/r.csv";  // a writable subfolder
      c.argv = Lab(args);
      c.setup = Copy({Fx("tiny.json"), Fx("run.db")}, {"tiny.json", "x.db"},
                     [](const std::string& dir, const std::string&) {
                       fs::create_directory(dir + "/out");
                       ::chmod((dir + "/out").c_str(), 0777);
                       ::chmod((dir + "/x.db").c_str(), 0444);
                       ::chmod(dir.c_str(), 0555);
                     });
      c.unprivileged = true;
      c.exits = {0};
      c.after = {{"x.db-wal", K::kAbsent}, {"x.db-shm", K::kAbsent}};
      Add(std::move(c));
    }
  }

  // --- board: ctte-board --stdio on hostile frames; its path flags ---------------------------
  void Board() {
    const std::string identify = R"({"v": 1, "id": 1, "op": "identify"})";
    std::vector<std::pair<std::string, std::string>> inputs = {
        {"garbage", Garbage(4096, 17)},
        {"bad-magic", "XXXX" + U32le(2) + U32le(0) + "{}"},
        {"header-len-zero", "CTB1" + U32le(0) + U32le(0)},
        {"header-len-huge", "CTB1" + U32le(0xFFFFFFFF) + U32le(0)},
        {"payload-len-huge", "CTB1" + U32le(2) + U32le(0xFFFFFFFF) + "{}"},
        {"truncated-header", "CTB1" + U32le(100) + U32le(0) + "{\"v\": 1"},
        {"truncated-payload", "CTB1" + U32le(2) + U32le(1000) + "{}" + "abc"},
        {"header-not-json", Frame("not json")},
        {"header-1e400", Frame("1e400")},
        {"id-1e400", Frame(R"({"v": 1, "id": 1e400, "op": "identify"})")},
        {"v-1e400", Frame(R"({"v": 1e400, "id": 1, "op": "identify"})")},
        {"dup-op", Frame(R"({"v": 1, "id": 1, "op": "identify", "op": "shutdown"})")},
        {"header-bom", Frame(kBom + identify)},
        {"header-utf8", Frame(R"({"v": 1, "id": 1, "op": "ident)" "\xFF" R"("})")},
        {"header-deep", Frame(std::string(100000, '[') + std::string(100000, ']'))},
        {"clock-1e400", Frame(R"({"v": 1, "id": 1, "op": "set_clock", "domain": "fabric", "hz": 1e400})")},
        {"clock-neg", Frame(R"({"v": 1, "id": 1, "op": "set_clock", "domain": "fabric", "hz": -1})")},
        {"clock-zero", Frame(R"({"v": 1, "id": 1, "op": "set_clock", "domain": "fabric", "hz": 0})")},
        {"clock-huge", Frame(R"({"v": 1, "id": 1, "op": "set_clock", "domain": "sink", "hz": 18446744073709551615})")},
        {"reg-offset-1e400", Frame(R"({"v": 1, "id": 1, "op": "read_reg", "offset": 1e400})")},
        {"reg-value-huge", Frame(R"({"v": 1, "id": 1, "op": "write_reg", "offset": 0, "value": 1099511627776})")},
        {"deploy-devzero", Frame(R"({"v": 1, "id": 1, "op": "deploy", "name": "x", "path": "/dev/zero", "expected_sha256": "", "expected_build_id": "0x0"})")},
        {"deploy-garbage", Frame(R"({"v": 1, "id": 1, "op": "deploy", "name": "x", "expected_sha256": "", "expected_build_id": "0x0"})", Garbage(5000, 21))},
        {"run-without-image", Frame(R"({"v": 1, "id": 1, "op": "run", "plan": {"workload_elf": "/dev/zero"}})")},
        {"unknown-op", Frame(R"({"v": 1, "id": 1, "op": "format_disk"})")},
    };
    for (const auto& [name, bytes] : inputs) {
      Case c;
      c.id = "board.stdio." + name;
      c.cls = "board";
      c.argv = {env_.board, "--stdio", "--slot-dir", "slots"};
      const std::string data = bytes;
      c.setup = [data](const std::string& dir, const std::string&) {
        WriteText(dir + "/in.bin", data);
      };
      c.stdin_file = "in.bin";
      c.exits = {0, 2};
      c.locate_always = true;
      c.locators = {{"byte", "offset", "$", "op", "hz", "path", "header", "plan", "payload",
                     "image", "version", "\"v\""}};
      c.timeout_s = 10;
      Add(std::move(c));
    }
    struct Flag {
      std::string name;
      Strings args;
      std::function<void(const std::string&, const std::string&)> setup;
      PathCheck after;
    };
    for (const Flag& f : std::vector<Flag>{
             {"unix-regular-file", {"--unix", "sock"},
              [](auto& dir, auto&) { WriteText(dir + "/sock", "precious\n"); },
              {"sock", K::kRegular}},
             {"unix-symlink", {"--unix", "sock"},
              [](auto& dir, auto& outside) { Symlink(outside + "/victim.txt", dir + "/sock"); },
              {"sock", K::kSymlink}},
             {"unix-missing-parent", {"--unix", "nodir/sock"}, nullptr, {"nodir", K::kAbsent}},
             {"slot-dir-file", {"--stdio", "--slot-dir", "slots"},
              [](auto& dir, auto&) { WriteText(dir + "/slots", "precious\n"); },
              {"slots", K::kRegular}},
         }) {
      Case c;
      c.id = "board.flags." + f.name;
      c.cls = "board";
      c.argv = {env_.board};
      c.argv.insert(c.argv.end(), f.args.begin(), f.args.end());
      c.setup = f.setup;
      c.after = {f.after};
      c.locators = {{f.args[1] == "nodir/sock" ? "nodir" : f.args.back()}};
      c.timeout_s = 5;
      if (f.name == "slot-dir-file") {
        c.stdin_file = "in.bin";
        const auto inner = f.setup;
        c.setup = [inner](const std::string& dir, const std::string& outside) {
          inner(dir, outside);
          WriteText(dir + "/in.bin", Frame(R"({"v": 1, "id": 1, "op": "identify"})"));
        };
      }
      Add(std::move(c));
    }
  }

  const Env& env_;
  std::vector<Case> cases_;
};

}  // namespace

std::vector<Case> MakeCorpus(const Env& env) { return Corpus(env).Build(); }

}  // namespace ctte::hostile
