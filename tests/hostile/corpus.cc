// The hostile corpus: every bad input, generated here at test time (nothing is checked in but
// these files). Classes: spec, config, stored, flags, output, stream, elf, manifest, db, board.
// This file: the helpers the parts share and the order of the classes (corpus.h lists the parts).
#include "tests/hostile/corpus.h"

namespace ctte::hostile {
namespace corpus {

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

std::string Frame(const std::string& header, const std::string& payload) {
  return "CTB1" + U32le(static_cast<uint32_t>(header.size())) +
         U32le(static_cast<uint32_t>(payload.size())) + header + payload;
}


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

std::vector<Case> Corpus::Build() {
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

}  // namespace corpus

std::vector<Case> MakeCorpus(const Env& env) { return corpus::Corpus(env).Build(); }

}  // namespace ctte::hostile
