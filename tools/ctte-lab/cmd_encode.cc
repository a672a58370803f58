// ctte-lab encode: run an ELF on the ISS and encode its beats with the software reference
// encoder (docs/encoder-behaviour.md) into an N-Trace byte stream.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <bit>
#include <cstdio>
#include <memory>
#include <string>

#include "base/files.h"
#include "oracle/features.h"
#include "oracle/iss.h"
#include "oracle/program_image.h"
#include "oracle/reference_encoder.h"
#include "oracle/trace_stats.h"
#include "runner/cli_config.h"
#include "tools/ctte-lab/command.h"
#include "tools/ctte-lab/flag_checks.h"

namespace ctte::cli {
namespace {

struct EncodeArgs {
  std::string elf;
  std::string out;
  uint64_t max_instructions = 50'000'000;
  uint64_t interrupt_every = 0;
  std::string mode = "htm";
  std::string sync_mode = "off";
  uint64_t sync_period = 0;
  unsigned icnt_bits = 22;
  std::string features = "none";
  bool json = false;
};

int RunEncode(const EncodeArgs& a) {
  oracle::EncoderConfig cfg;
  cfg.mode = a.mode == "btm" ? oracle::TraceMode::kBtm : oracle::TraceMode::kHtm;
  cfg.icnt_bits = static_cast<uint8_t>(a.icnt_bits);
  Result<oracle::FeatureSet> features = oracle::ParseFeatures(a.features, "--features");
  if (!features.ok()) {
    std::fprintf(stderr, "ctte-lab encode: %s\n", features.status().message().c_str());
    return kExitUsage;
  }
  cfg.features = *features;
  Result<runner::SyncPolicy> sync = runner::SyncFromFlags(a.sync_mode, a.sync_period);
  if (!sync.ok()) {
    std::fprintf(stderr, "ctte-lab encode: %s\n", sync.status().message().c_str());
    return kExitUsage;
  }
  switch (sync->kind) {  // trTeInstSyncMode: 0 off, 1 messages, 3 half-words
    case runner::SyncPolicy::Kind::kOff: cfg.sync_mode = 0; break;
    case runner::SyncPolicy::Kind::kMessages: cfg.sync_mode = 1; break;
    case runner::SyncPolicy::Kind::kHalfwords: cfg.sync_mode = 3; break;
  }
  if (cfg.sync_mode != 0) cfg.sync_max = static_cast<uint8_t>(sync->period_log2 - 4);
  Result<oracle::ProgramImage> image = oracle::ProgramImage::Load(a.elf);
  if (!image.ok()) {
    std::fprintf(stderr, "ctte-lab encode: %s\n", image.status().ToString().c_str());
    return kExitUsage;
  }
  cfg.xlen = static_cast<uint8_t>(oracle::XlenBits(image->xlen()));  // the ELF's class
  oracle::IssOptions opt;
  opt.max_instructions = a.max_instructions;
  opt.interrupt_every = a.interrupt_every;
  oracle::Iss iss(*image, opt);
  oracle::ReferenceEncoder enc(cfg);
  oracle::OutputRateMeter meter;
  enc.Open();
  oracle::Retired beat;
  while (iss.Step(&beat)) {
    enc.Beat(beat);
    meter.Beat(enc.bytes().size(), beat.retires);
  }
  enc.Close();
  if (iss.stop_reason() == oracle::StopReason::kFatal) {
    std::fprintf(stderr, "ctte-lab encode: ISS stopped: %s (trace written up to there)\n",
                 iss.fatal_message().c_str());
  }
  Status st = WriteFileAtomic(a.out, enc.bytes());
  if (!st.ok()) {
    std::fprintf(stderr, "ctte-lab encode: %s\n", st.ToString().c_str());
    return kExitUsage;
  }
  // The Section IX figures, as `run` reports them for a capture (docs/inputs-and-outputs.md).
  const oracle::TraceStats stats = oracle::ComputeTraceStats(enc.bytes(), iss.retired());
  const oracle::OutputRate rate = meter.Finish(enc.bytes().size());
  if (a.json) {
    nlohmann::ordered_json j;
    j["elf"] = a.elf;
    j["out"] = a.out;
    j["instructions"] = iss.retired();
    j["beats"] = iss.beats();
    j["messages"] = enc.messages();
    j["bytes"] = enc.bytes().size();
    j["payload_bits_per_instruction"] = stats.PayloadBitsPerInstruction();
    j["wire_bits_per_instruction"] = stats.WireBitsPerInstruction();
    j["messages_per_kilo_instruction"] = stats.MessagesPerKiloInstruction();
    j["output_rate"] = {{"window_instructions", rate.window_instructions},
                        {"mean_bits_per_instruction", rate.MeanBitsPerInstruction()},
                        {"peak_bits_per_instruction", rate.PeakBitsPerInstruction()},
                        {"peak_to_mean", rate.PeakToMean()}};
    std::printf("%s\n", j.dump(2).c_str());
    return kExitOk;
  }
  std::printf("%s: %llu instructions, %llu beats, %llu messages, %zu bytes -> %s\n",
              a.elf.c_str(), static_cast<unsigned long long>(iss.retired()),
              static_cast<unsigned long long>(iss.beats()),
              static_cast<unsigned long long>(enc.messages()), enc.bytes().size(),
              a.out.c_str());
  std::printf("bits: %.2f payload / %.2f wire bits per instruction, %.1f messages per 1000 "
              "instructions\n",
              stats.PayloadBitsPerInstruction(), stats.WireBitsPerInstruction(),
              stats.MessagesPerKiloInstruction());
  std::printf("rate: output peak %.2f / mean %.2f bits per instruction over %llu-instruction "
              "windows (peak / mean %.2f)\n",
              rate.PeakBitsPerInstruction(), rate.MeanBitsPerInstruction(),
              static_cast<unsigned long long>(rate.window_instructions), rate.PeakToMean());
  return kExitOk;
}

}  // namespace

Command EncodeCommand() {
  return Command{
    "encode", "Run an ELF on the ISS and encode it with the reference N-Trace encoder",
    [](CLI::App& sub) -> std::function<int()> {
      auto a = std::make_shared<EncodeArgs>();
      sub.add_option("elf", a->elf, "RV64 ELF to run")->required();
      sub.add_option("--out", a->out, "where to write the N-Trace byte stream")->required();
      sub.add_option("--max-instructions", a->max_instructions,
                     "stop after this many beats, 1..10^9")
          ->check(UnsignedIn(1, kMaxInstructionsFlag));
      sub.add_option("--interrupt-every", a->interrupt_every,
                     "raise a software interrupt every N retired instructions")
          ->check(Unsigned());
      AddTraceModeOptions(sub, &a->mode, &a->sync_mode, &a->sync_period);
      sub.add_option("--features", a->features,
                     "optional features: none, or a comma list of implicit-return[:DEPTH] "
                     "(depth 1..32, default 32), repeated-history, repeat-branch, "
                     "sequential-jump, full-address, config-message; "
                     "docs/encoder-behaviour.md section 11");
      sub.add_option("--icnt-bits", a->icnt_bits, "I-CNT width before ResourceFull (1..22)")
          ->check(CLI::Range(1, 22));
      sub.add_flag("--json", a->json,
                   "print the figures as JSON: bits per instruction (payload, wire), messages "
                   "per 1000 instructions, peak against mean output rate");
      sub.footer("Exit status: 0 written, 2 usage or input error.");
      return [a] { return RunEncode(*a); };
    }};
}

}  // namespace ctte::cli
