// The hostile corpus: campaign specs, run configs and stored configs (see corpus.h).
#include "tests/hostile/corpus.h"

namespace ctte::hostile::corpus {

// --- spec: campaign specs through check, draw, plan and soak --------------------------------
void Corpus::Specs() {
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
      // The features axis (docs/campaign-spec.md, "The features axis").
      {"features-unknown", Replace(kTinySpec, "\"axes\": {", "\"axes\": {\"features\": [[\"bogus\"]], ")},
      {"features-depth",
       Replace(kTinySpec, "\"axes\": {", "\"axes\": {\"features\": [\"none\", [\"implicit-return:99\"]], ")},
      {"features-type", Replace(kTinySpec, "\"axes\": {", "\"axes\": {\"features\": [[true]], ")},
      {"features-twice",
       Replace(kTinySpec, "\"axes\": {",
               "\"axes\": {\"features\": [[\"implicit-return\", \"implicit-return:4\"]], ")},
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
  // A control that fixes a feature its image does not compile: valid to `check` (which knows no
  // images), refused by `soak` before a database is made, naming the control's JSON path.
  {
    Case c;
    c.id = "spec.soak.features-control-image-lacks";
    c.cls = "spec";
    c.argv = Lab(SoakArgs("spec.json"));
    const std::string spec = Replace(
        kTinySpec, "\"axes\"",
        "\"controls\": [{\"name\": \"ir\", \"image\": \"ntrace-slim\", \"expect_red\": [], "
        "\"axes\": {\"features\": [\"implicit-return\"]}}], \"axes\"");
    c.setup = [spec](const std::string& dir, const std::string&) {
      WriteText(dir + "/spec.json", spec);
    };
    c.locators = {{"$.controls[0].axes.features"}};
    c.after = {{"soak.db", K::kAbsent}};
    Add(std::move(c));
  }
}

// --- config: run --config RUNCONFIG ---------------------------------------------------------
// Edits of a valid RunConfig that both `run --config` and a stored config (replay, show) get.
std::vector<Input> Corpus::ConfigEdits(const std::string& valid) {
  return {
      {"fabric-1e400", Replace(valid, "\"fabric_hz\":", "\"fabric_hz\":1e400,\"x\":")},
      {"fabric-neg", Replace(valid, "\"fabric_hz\":", "\"fabric_hz\":-1,\"x\":")},
      {"seed-bad", Replace(valid, "\"seed\":\"0x", "\"seed\":\"0xZZ")},
      {"dup-image", Replace(valid, "\"image\":", "\"image\":\"ntrace-shallow\",\"image\":")},
  };
}

void Corpus::Configs() {
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
      {"features-unknown",
       Replace(valid, "\"fabric_mhz\":\"", "\"features\":\"bogus\",\"fabric_mhz\":\"")},
      {"features-depth", Replace(valid, "\"fabric_mhz\":\"",
                                 "\"features\":\"implicit-return:0\",\"fabric_mhz\":\"")},
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

namespace {

// The `then` of a case's setup: `column` of every run in the copied run.db set to `text` with
// the sqlite3 shell (what a damaged or hand-edited database holds).
std::function<void(const std::string&, const std::string&)> StoredEdit(const std::string& column,
                                                                 const std::string& text) {
  std::string sql_text;  // SQL string literal
  for (char ch : text) sql_text += ch == '\'' ? std::string("''") : std::string(1, ch);
  return [column, sql_text](const std::string& dir, const std::string&) {
    WriteText(dir + "/edit.sql", "UPDATE runs SET " + column + " = '" + sql_text + "';\n");
    const std::string cmd = "cd '" + dir + "' && sqlite3 run.db < edit.sql";
    if (std::system(cmd.c_str()) != 0) {
      throw std::runtime_error("sqlite3 could not store the " + column);
    }
  };
}

}  // namespace

// --- stored: a database whose stored RunConfig is hostile (replay, show) -------------------
void Corpus::Stored() {
  if (!env_.have_sqlite3) return;
  const std::string valid = ReadText(Fx("config.json"));
  std::vector<Input> stored = ConfigEdits(valid);
  stored.push_back({"not-object", "[1, 2]"});
  for (const Input& edit : stored) {
    const std::string& name = edit.name;
    const auto setup = Copy({Fx("run.db")}, {"run.db"}, StoredEdit("config_json", edit.content));
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
  // A stored metrics_json that is not what the runner writes (issue #29: `show` aborted, exit
  // 134, on {"status_reason": 5}): shown or refused naming the column, never a crash.
  const std::vector<Input> metrics = {
      {"reason-number", R"({"status_reason": 5})"},
      {"reason-null", R"({"status_reason": null})"},
      {"reason-object", R"({"status_reason": {"a": 1}})"},
      {"array", "[1, 2]"},  // (text that is not JSON at all the schema's CHECK refuses)
  };
  for (const Input& edit : metrics) {
    const auto setup = Copy({Fx("run.db")}, {"run.db"}, StoredEdit("metrics_json", edit.content));
    for (const char* cmd : {"show", "history"}) {
      Case c;
      c.id = std::string("stored.metrics.") + cmd + "." + edit.name;
      c.cls = "stored";
      c.argv = Lab(std::string(cmd) == "show" ? Strings{"show", "1", "--db", "run.db"}
                                               : Strings{"history", "--db", "run.db"});
      c.setup = setup;
      c.exits = {0, 2};
      c.locators = {{"run 1", "metrics_json", "run.db"}};
      Add(std::move(c));
    }
  }
}

}  // namespace ctte::hostile::corpus
