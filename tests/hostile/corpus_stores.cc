// The hostile corpus: damaged image manifests and databases, hostile board frames (see corpus.h).
#include "tests/hostile/corpus.h"

namespace ctte::hostile::corpus {

// --- manifest: run --image with a damaged image manifest -----------------------------------
void Corpus::Manifests() {
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
void Corpus::Databases() {
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
void Corpus::Board() {
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

}  // namespace ctte::hostile::corpus
