// Internal to the hostile suite: the corpus builder (corpus.cc) and the helpers its parts share.
// One file per class of cases: corpus_specs.cc (spec, config, stored), corpus_flags.cc (flags),
// corpus_outputs.cc (output, stream, elf), corpus_stores.cc (manifest, db, board).
#pragma once

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

namespace ctte::hostile::corpus {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;
using Strings = std::vector<std::string>;
using K = PathCheck::Kind;

inline constexpr const char* kBom = "\xEF\xBB\xBF";

// Deterministic garbage (xorshift), so a failing case is the same bytes on every run.
std::string Garbage(size_t n, uint64_t seed);
// `text` with the first `from` replaced by `to` (the corpus edits valid JSON as text, so that
// it can write what nlohmann would never print: 1e400, duplicate keys).
std::string Replace(std::string text, const std::string& from, const std::string& to);
std::string U32le(uint32_t v);
std::string Frame(const std::string& header, const std::string& payload = "");

// A bad input file: either content, or a kind of non-file.
struct Input {
  std::string name;
  std::string content;
  enum class Kind {
    kContent, kDevZero, kFifo, kDirectory, kMissing, kSymlinkDevZero, kDevZeroTwin
  } kind = Kind::kContent;
};

bool IsContent(const Input& in);
void MakeInput(const Input& in, const std::string& path);
std::string InputPath(const Input& in, const std::string& file);
// The kinds of non-file every file input is tried with.
std::vector<Input> FileKinds();
// JSON-level attacks that apply to any JSON document `valid`.
std::vector<Input> JsonAttacks(const std::string& valid);

class Corpus {
 public:
  explicit Corpus(const Env& env) : env_(env) {}

  std::vector<Case> Build();

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

  void Specs();
  // Edits of a valid RunConfig that both `run --config` and a stored config (replay, show) get.
  static std::vector<Input> ConfigEdits(const std::string& valid);
  void Configs();
  void Stored();

  using FlagRows = std::vector<std::pair<std::string, Strings>>;
  using Setup = std::function<void(const std::string&, const std::string&)>;
  // One "flags" case per row: `base` and the row's flags; the message must name one of
  // `locate(row flags)`.
  void FlagCases(const std::string& prefix, const Strings& base, const FlagRows& rows,
                 const std::function<Strings(const Strings&)>& locate, const Setup& setup = nullptr,
                 const std::vector<PathCheck>& after = {});
  static Strings FirstFlag(const Strings& extra) { return {extra[0]}; }
  static Strings LastFlag(const Strings& extra) { return {extra[extra.size() - 2]}; }
  void Flags();

  void Outputs();
  void Streams();
  void Elfs();
  void Manifests();
  void Databases();
  void Board();

  const Env& env_;
  std::vector<Case> cases_;
};

}  // namespace ctte::hostile::corpus
