// Decoder throughput (reconstructed instructions per second) on the largest workload stream,
// plus the bits per instruction of every workload in HTM and BTM (printed as a table first).
//
// Run: build-dir/bench/decoder_bench   (needs the workloads: build target ctte_workloads)
#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>
#include <vector>

#include "oracle/iss.h"
#include "oracle/program_image.h"
#include "oracle/reconstruct.h"
#include "oracle/reference_encoder.h"
#include "oracle/trace_stats.h"

namespace ctte::oracle {
namespace {

const char* const kWorkloads[] = {"loop", "calls", "ptrchase", "sort", "switch", "traps"};

struct Stream {
  std::string name;
  TraceMode mode;
  ProgramImage image;
  std::vector<uint8_t> bytes;
  uint64_t instructions = 0;
};

class CountingSink : public PcSink {
 public:
  void OnPcs(const uint64_t* pcs, size_t n) override {
    count += n;
    last ^= pcs[n - 1];
  }
  void OnMarker(const Marker& m) override { errors += m.kind == Marker::Kind::kDecodeError; }
  uint64_t count = 0, last = 0, errors = 0;
};

std::vector<Stream>& Streams() {
  static std::vector<Stream> streams = [] {
    std::vector<Stream> v;
    for (const char* w : kWorkloads) {
      const std::string path = std::string(CTTE_BINARY_DIR) + "/workloads/" + w + ".elf";
      Result<ProgramImage> image = ProgramImage::Load(path);
      if (!image.ok()) {
        std::fprintf(stderr, "skipping %s: %s\n", w, image.status().ToString().c_str());
        continue;
      }
      for (TraceMode mode : {TraceMode::kHtm, TraceMode::kBtm}) {
        EncoderConfig cfg;
        cfg.mode = mode;
        ReferenceEncoder enc(cfg);
        Iss iss(*image, IssOptions{});
        enc.Open();
        Retired b;
        while (iss.Step(&b)) enc.Beat(b);
        enc.Close();
        v.push_back({w, mode, *image, enc.bytes(), iss.retired()});
      }
    }
    return v;
  }();
  return streams;
}

void PrintBitsPerInstruction() {
  std::printf("%-10s %-4s %12s %10s %10s %12s %12s\n", "workload", "mode", "instructions",
              "messages", "bytes", "payload b/i", "wire b/i");
  for (const Stream& s : Streams()) {
    const TraceStats st = ComputeTraceStats(s.bytes, s.instructions);
    std::printf("%-10s %-4s %12llu %10llu %10llu %12.3f %12.3f\n", s.name.c_str(),
                s.mode == TraceMode::kHtm ? "htm" : "btm",
                static_cast<unsigned long long>(s.instructions),
                static_cast<unsigned long long>(st.total_messages()),
                static_cast<unsigned long long>(st.wire_bytes()), st.PayloadBitsPerInstruction(),
                st.WireBitsPerInstruction());
  }
}

void BM_DecodeLargestStream(benchmark::State& state) {
  const TraceMode mode = state.range(0) == 0 ? TraceMode::kHtm : TraceMode::kBtm;
  const Stream* largest = nullptr;
  for (const Stream& s : Streams()) {
    if (s.mode == mode && (largest == nullptr || s.instructions > largest->instructions)) {
      largest = &s;
    }
  }
  if (largest == nullptr) {
    state.SkipWithError("no workloads built");
    return;
  }
  uint64_t total = 0;
  for (auto _ : state) {
    CountingSink sink;
    DecodeStream(largest->bytes, largest->image, {}, &sink);
    if (sink.errors != 0 || sink.count != largest->instructions) {
      state.SkipWithError("decode did not reproduce the stream");
      return;
    }
    benchmark::DoNotOptimize(sink.last);
    total += sink.count;
  }
  state.SetLabel(largest->name + (mode == TraceMode::kHtm ? " htm" : " btm"));
  state.SetItemsProcessed(static_cast<int64_t>(total));
  state.counters["insn/s"] =
      benchmark::Counter(static_cast<double>(total), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_DecodeLargestStream)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ctte::oracle

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  ctte::oracle::PrintBitsPerInstruction();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
