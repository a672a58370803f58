// PC text output (`decode --pcs`, `iss --pcs`) against decoding itself, on one generated program
// of about 14 M instructions (workload gen --seed 17 --max-dynamic 17000000, the stream the
// whole-process comparison with the reference decoder uses; docs/bench.md):
//   BM_Decode           decode only (PCs counted)
//   BM_DecodePcs        decode + PC text through OutputFileWriter (what decode --pcs does)
//   BM_DecodePcsPrintf  decode + one fprintf("%s\n", HexShort(pc)) per PC (what it did before)
//   BM_IssPcs           ISS + PC text (what iss --pcs does)
// Counters: insn/s (per CPU second) and text MB/s. Run: build/bench/pcs_bench
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "base/output.h"
#include "base/text.h"
#include "oracle/iss.h"
#include "oracle/program_gen.h"
#include "oracle/reconstruct.h"
#include "oracle/reference_encoder.h"

namespace ctte::oracle {
namespace {

struct BigStream {
  ProgramImage image;
  std::vector<uint8_t> bytes;
  uint64_t instructions = 0;
};

const BigStream& Stream() {
  static const BigStream s = [] {
    ProgramGenOptions o;
    o.max_dynamic = 17'000'000;
    BigStream b{GenerateProgram(17, o).ToImage(), {}, 0};
    ReferenceEncoder enc(EncoderConfig{});
    Iss iss(b.image, IssOptions{});
    enc.Open();
    Retired r;
    while (iss.Step(&r)) enc.Beat(r);
    enc.Close();
    b.bytes = enc.bytes();
    b.instructions = iss.retired();
    return b;
  }();
  return s;
}

std::string OutPath() { return "/tmp/ctte_pcs_bench_" + std::to_string(::getpid()) + ".txt"; }

class CountingSink : public PcSink {
 public:
  void OnPcs(const uint64_t* pcs, size_t n) override {
    count += n;
    last ^= pcs[n - 1];
  }
  void OnMarker(const Marker&) override {}
  uint64_t count = 0, last = 0;
};

class WriterSink : public CountingSink {
 public:
  explicit WriterSink(OutputFileWriter* w) : w_(w) {}
  void OnPcs(const uint64_t* pcs, size_t n) override {
    count += n;
    w_->AppendHexLines(pcs, n);
  }

 private:
  OutputFileWriter* w_;
};

class PrintfSink : public CountingSink {
 public:
  explicit PrintfSink(std::FILE* f) : f_(f) {}
  void OnPcs(const uint64_t* pcs, size_t n) override {
    count += n;
    for (size_t i = 0; i < n; ++i) std::fprintf(f_, "%s\n", HexShort(pcs[i]).c_str());
  }

 private:
  std::FILE* f_;
};

void Report(benchmark::State& state, uint64_t insns, uint64_t text_bytes) {
  state.counters["insn/s"] = benchmark::Counter(static_cast<double>(insns),
                                                benchmark::Counter::kIsRate);
  state.counters["text_MB/s"] = benchmark::Counter(static_cast<double>(text_bytes) / 1e6,
                                                   benchmark::Counter::kIsRate);
  state.counters["insn/iter"] = static_cast<double>(insns) /
                                static_cast<double>(state.iterations());
}

uint64_t FileSize(const std::string& path) {
  std::error_code ec;
  const auto n = std::filesystem::file_size(path, ec);
  return ec ? 0 : static_cast<uint64_t>(n);
}

void BM_Decode(benchmark::State& state) {
  const BigStream& s = Stream();
  uint64_t insns = 0;
  for (auto _ : state) {
    CountingSink sink;
    DecodeStream(s.bytes, s.image, {}, &sink);
    benchmark::DoNotOptimize(sink.last);
    insns += sink.count;
  }
  Report(state, insns, 0);
}
BENCHMARK(BM_Decode)->Unit(benchmark::kMillisecond);

void BM_DecodePcs(benchmark::State& state) {
  const BigStream& s = Stream();
  const std::string path = OutPath();
  uint64_t insns = 0, bytes = 0;
  for (auto _ : state) {
    auto w = OutputFileWriter::Open(path);
    if (!w.ok()) {
      state.SkipWithError(w.status().ToString().c_str());
      return;
    }
    WriterSink sink(w->get());
    DecodeStream(s.bytes, s.image, {}, &sink);
    if (Status st = (*w)->Commit(); !st.ok()) {
      state.SkipWithError(st.ToString().c_str());
      return;
    }
    insns += sink.count;
    bytes += FileSize(path);
  }
  std::filesystem::remove(path);
  Report(state, insns, bytes);
}
BENCHMARK(BM_DecodePcs)->Unit(benchmark::kMillisecond);

void BM_DecodePcsPrintf(benchmark::State& state) {
  const BigStream& s = Stream();
  const std::string path = OutPath();
  uint64_t insns = 0, bytes = 0;
  for (auto _ : state) {
    std::FILE* f = std::fopen(path.c_str(), "w");
    if (f == nullptr) {
      state.SkipWithError("cannot write the output file");
      return;
    }
    PrintfSink sink(f);
    DecodeStream(s.bytes, s.image, {}, &sink);
    std::fclose(f);
    insns += sink.count;
    bytes += FileSize(path);
  }
  std::filesystem::remove(path);
  Report(state, insns, bytes);
}
BENCHMARK(BM_DecodePcsPrintf)->Unit(benchmark::kMillisecond);

void BM_IssPcs(benchmark::State& state) {
  const BigStream& s = Stream();
  const std::string path = OutPath();
  uint64_t insns = 0, bytes = 0;
  for (auto _ : state) {
    auto w = OutputFileWriter::Open(path);
    if (!w.ok()) {
      state.SkipWithError(w.status().ToString().c_str());
      return;
    }
    Iss iss(s.image, IssOptions{});
    Retired r;
    while (iss.Step(&r)) {
      if (r.retires) (*w)->AppendHexLine(r.pc);
    }
    if (Status st = (*w)->Commit(); !st.ok()) {
      state.SkipWithError(st.ToString().c_str());
      return;
    }
    insns += iss.retired();
    bytes += FileSize(path);
  }
  std::filesystem::remove(path);
  Report(state, insns, bytes);
}
BENCHMARK(BM_IssPcs)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ctte::oracle

BENCHMARK_MAIN();
