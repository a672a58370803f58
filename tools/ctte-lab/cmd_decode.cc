// ctte-lab decode: an N-Trace capture plus its ELF -> PC sequence, messages, statistics.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/files.h"
#include "base/output.h"
#include "base/text.h"
#include "oracle/config_message.h"
#include "oracle/features.h"
#include "oracle/ntrace_reader.h"
#include "oracle/program_image.h"
#include "oracle/reconstruct.h"
#include "oracle/trace_stats.h"
#include "tools/ctte-lab/command.h"
#include "tools/ctte-lab/pcs_output.h"

namespace ctte::cli {
namespace {

using oracle::Marker;
using oracle::Message;

struct DecodeArgs {
  std::string trace;
  std::string elf;
  std::string pcs;
  bool messages = false;
  bool json = false;
  bool implicit_return = false;
  std::string features;  ///< "" = not given
};

// Streams PCs to a file (or nowhere) and keeps the markers.
class CliSink : public oracle::PcSink {
 public:
  explicit CliSink(OutputFileWriter* out) : out_(out) {}
  void OnPcs(const uint64_t* pcs, size_t n) override {
    if (out_ == nullptr) return;
    out_->AppendHexLines(pcs, n);
  }
  void OnMarker(const Marker& m) override { markers.push_back(m); }
  std::vector<Marker> markers;

 private:
  OutputFileWriter* out_;
};

// Prints every message and every problem of the stream, in stream order.
class PrintingReporter : public oracle::MessageReader::Reporter {
 public:
  void Corruption(uint64_t offset, uint64_t bytes, const std::string& reason) override {
    std::printf("%8llu  CORRUPT (%llu bytes) %s\n", static_cast<unsigned long long>(offset),
                static_cast<unsigned long long>(bytes), reason.c_str());
  }
  void Skipped(const Message& msg, const std::string& reason) override {
    std::printf("%8llu  SKIPPED %s\n", static_cast<unsigned long long>(msg.offset),
                reason.c_str());
  }
};

int RunDecode(const DecodeArgs& a) {
  // --pcs -: the PCs own standard output; the statistics go to stderr, and what only prints to
  // standard output (--json, --messages) is refused before anything is read.
  std::optional<PcsOutput> out =
      OpenPcsOutput("decode", a.pcs, a.json ? "--json" : a.messages ? "--messages" : nullptr);
  if (!out) return kExitUsage;
  FILE* const info = out->info;
  OutputFileWriter* const pcs = out->writer.get();
  Result<std::vector<uint8_t>> bytes = ReadFileBytes(a.trace);
  if (!bytes.ok()) {
    std::fprintf(stderr, "ctte-lab decode: %s\n", bytes.status().ToString().c_str());
    return kExitUsage;
  }
  Result<oracle::ProgramImage> image = oracle::ProgramImage::Load(a.elf);
  if (!image.ok()) {
    std::fprintf(stderr, "ctte-lab decode: %s\n", image.status().ToString().c_str());
    return kExitUsage;
  }
  if (a.messages) {
    PrintingReporter rep;
    oracle::MessageReader reader(*bytes, &rep);
    Message m;
    while (reader.Next(&m)) {
      std::printf("%8llu  %s\n", static_cast<unsigned long long>(m.offset),
                  m.ToString().c_str());
    }
  }
  CliSink sink(pcs);
  oracle::DecodeOptions opt;
  Result<oracle::FeatureSet> features = oracle::ParseFeatures(a.features, "--features");
  if (!features.ok()) {
    std::fprintf(stderr, "ctte-lab decode: %s\n", features.status().message().c_str());
    return kExitUsage;
  }
  if (a.implicit_return) features->implicit_return_depth = oracle::kMaxReturnStackDepth;
  const bool given = !a.features.empty() || a.implicit_return;
  // Section 11.9: the stream's configuration messages win over --features.
  Result<oracle::FeatureChoice> choice =
      oracle::ChooseFeatures(*bytes, given ? &*features : nullptr);
  if (!choice.ok()) {
    std::fprintf(stderr, "ctte-lab decode: %s\n", choice.status().message().c_str());
    return kExitRed;
  }
  if (!choice->mismatch.empty()) std::fprintf(stderr, "ctte-lab decode: %s\n",
                                              choice->mismatch.c_str());
  oracle::Reconstructor::ApplyFeatures(choice->features, &opt.reconstruct);
  opt.reconstruct.xlen = static_cast<uint32_t>(oracle::XlenBits(image->xlen()));  // ELF class
  oracle::Reconstructor rec(*image, opt.reconstruct, &sink);
  size_t next_config = 0;
  struct Fwd : oracle::MessageReader::Reporter {
    oracle::Reconstructor* r;
    oracle::TraceStats* s;
    void Corruption(uint64_t offset, uint64_t, const std::string& reason) override {
      r->OnCorruption(offset, reason);
    }
    void Skipped(const Message& msg, const std::string&) override { s->AddMessage(msg); }
  } fwd;
  oracle::TraceStats stats;
  fwd.r = &rec;
  fwd.s = &stats;
  oracle::MessageReader reader(*bytes, &fwd);
  Message m;
  while (reader.Next(&m)) {
    if (pcs != nullptr && pcs->reader_closed()) break;
    while (next_config < choice->configs.size() && choice->configs[next_config].offset < m.offset) {
      rec.Configure(choice->configs[next_config++].features);
    }
    stats.AddMessage(m);
    rec.OnMessage(m);
  }
  rec.Finish();
  if (pcs != nullptr) {
    if (Status st = pcs->Commit(); !st.ok()) {
      std::fprintf(stderr, "ctte-lab decode: --pcs: %s\n", st.ToString().c_str());
      return kExitUsage;
    }
    // The reader closed the pipe (`| head`): it has what it wanted; stop quietly.
    if (pcs->reader_closed()) return kExitOk;
  }
  stats.set_wire_bytes(bytes->size());
  stats.set_idle_bytes(reader.idle_bytes());
  stats.set_instructions(rec.instructions());

  if (a.json) {
    nlohmann::json j;
    j["trace"] = a.trace;
    j["elf"] = a.elf;
    j["instructions"] = rec.instructions();
    j["decode_errors"] = rec.decode_errors();
    j["features"] = oracle::FormatFeatures(choice->features);
    j["configured_by"] = choice->configs.empty() ? (given ? "--features" : "none") : "stream";
    if (!choice->mismatch.empty()) j["config_mismatch"] = choice->mismatch;
    nlohmann::json st;
    st["messages"] = stats.total_messages();
    st["wire_bytes"] = stats.wire_bytes();
    st["idle_bytes"] = stats.idle_bytes();
    st["messages_per_kilo_instruction"] = stats.MessagesPerKiloInstruction();
    st["payload_bits_per_instruction"] = stats.PayloadBitsPerInstruction();
    st["wire_bits_per_instruction"] = stats.WireBitsPerInstruction();
    nlohmann::json per = nlohmann::json::object();
    for (int t = 0; t < 64; ++t) {
      if (stats.messages(static_cast<uint8_t>(t)) == 0) continue;
      per[oracle::TcodeName(static_cast<uint8_t>(t))] = {
          {"tcode", t},
          {"messages", stats.messages(static_cast<uint8_t>(t))},
          {"bytes", stats.bytes(static_cast<uint8_t>(t))}};
    }
    st["per_tcode"] = per;
    j["stats"] = st;
    nlohmann::json marks = nlohmann::json::array();
    for (const Marker& mk : sink.markers) {
      nlohmann::json x = {{"kind", oracle::MarkerKindName(mk.kind)},
                          {"pc_index", mk.pc_index},
                          {"offset", mk.offset}};
      switch (mk.kind) {
        case Marker::Kind::kAnchor: x["sync"] = mk.code; x["pc"] = HexShort(mk.pc); break;
        case Marker::Kind::kLoss: x["etype"] = mk.code; x["ecode"] = mk.value; break;
        case Marker::Kind::kCorrelation: x["evcode"] = mk.code; break;
        case Marker::Kind::kDecodeError: x["reason"] = mk.reason; break;
      }
      marks.push_back(std::move(x));
    }
    j["markers"] = std::move(marks);
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::fprintf(info,
                 "instructions %llu, messages %llu, bytes %llu, %.3f wire bits/instruction, "
                 "%llu decode error(s)\n",
                 static_cast<unsigned long long>(rec.instructions()),
                 static_cast<unsigned long long>(stats.total_messages()),
                 static_cast<unsigned long long>(stats.wire_bytes()),
                 stats.WireBitsPerInstruction(),
                 static_cast<unsigned long long>(rec.decode_errors()));
    for (const Marker& mk : sink.markers) {
      if (mk.kind == Marker::Kind::kDecodeError) {
        std::fprintf(info, "decode error at PC index %llu: %s\n",
                     static_cast<unsigned long long>(mk.pc_index), mk.reason.c_str());
      }
    }
  }
  return rec.decode_errors() > 0 || !choice->mismatch.empty() ? kExitRed : kExitOk;
}

}  // namespace

Command DecodeCommand() {
  return Command{
    "decode",
    "Decode an N-Trace capture against its ELF (exit 0 clean, 1 decode errors found, 2 "
    "usage or input error)",
    [](CLI::App& sub) -> std::function<int()> {
      auto a = std::make_shared<DecodeArgs>();
      sub.add_option("trace", a->trace, "N-Trace byte stream (capture)")->required();
      sub.add_option("--elf", a->elf, "program image the trace was taken from")->required();
      sub.add_option("--pcs", a->pcs,
                     "write the reconstructed PCs, one hex PC per line, to this file, or to "
                     "standard output for '-' (the statistics then go to stderr; --json and "
                     "--messages are refused with it)");
      sub.add_flag("--messages", a->messages,
                   "list every message with its byte offset and fields");
      sub.add_flag("--json", a->json, "print statistics and markers as JSON");
      sub.add_option("--features", a->features,
                     "the encoder's optional features: none, or a comma list of "
                     "implicit-return[:DEPTH], repeated-history, repeat-branch, "
                     "sequential-jump, full-address, config-message "
                     "(docs/encoder-behaviour.md section 11); a wrong set gives decode errors; "
                     "a stream's configuration messages (section 11.9) win, and a disagreement "
                     "is reported (exit 1)");
      sub.add_flag("--implicit-return", a->implicit_return,
                   "same as --features implicit-return:32");
      sub.footer(
          "Exit status: 0 when the stream decoded without error, 1 when decode errors were "
          "found (they are listed; a corrupt stream never aborts the decoder), when "
          "--features disagrees with the stream's configuration message or that message is "
          "malformed, 2 on a usage "
          "or input error (missing file, bad ELF, a --pcs path that is not a regular file, a "
          "failed write). With --pcs -, a reader that closes the pipe early (| head) ends the "
          "decode quietly with exit 0.");
      return [a] { return RunDecode(*a); };
    }};
}

}  // namespace ctte::cli
