// The hostile corpus: hostile output paths, damaged traces and program images (see corpus.h).
#include "tests/hostile/corpus.h"

namespace ctte::hostile::corpus {

// --- output: a FIFO, a symlink, a device, a folder or a missing parent at an output path ---
void Corpus::Outputs() {
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
void Corpus::Streams() {
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
void Corpus::Elfs() {
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

}  // namespace ctte::hostile::corpus
