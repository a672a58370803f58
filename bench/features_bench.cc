// Compression of the optional features (docs/encoder-behaviour.md section 11): payload and wire
// bits per instruction of every workload, HTM and BTM, for each feature set, and the reduction
// against no features (negative for full-address, which is not a compression feature). Reference encoder (= RTL bytes, tests/rtl/features_test.cc), whole run.
//
// Run: build-dir/bench/features_bench   (needs the workloads: build target ctte_workloads)
#include <cstdio>
#include <string>
#include <vector>

#include "oracle/features.h"
#include "oracle/iss.h"
#include "oracle/program_image.h"
#include "oracle/reference_encoder.h"
#include "oracle/trace_stats.h"

int main() {
  using namespace ctte::oracle;
  const char* const workloads[] = {"loop",   "calls", "ptrchase", "sort",
                                   "switch", "traps", "spin",     "farcalls"};
  const char* const sets[] = {"none",
                              "implicit-return:16",
                              "implicit-return:32",
                              "repeated-history",
                              "repeat-branch",
                              "repeated-history,repeat-branch",
                              "implicit-return:16,repeated-history,repeat-branch",
                              "sequential-jump",
                              "implicit-return:16,sequential-jump",
                              "full-address",
                              "config-message",
                              "implicit-return:16,sequential-jump,full-address,config-message"};
  std::printf("| workload | mode | features | bytes | payload b/i | wire b/i | reduction |\n"
              "|---|---|---|---|---|---|---|\n");
  for (const char* w : workloads) {
    const std::string path = std::string(CTTE_BINARY_DIR) + "/workloads/" + w + ".elf";
    ctte::Result<ProgramImage> image = ProgramImage::Load(path);
    if (!image.ok()) {
      std::fprintf(stderr, "skipping %s: %s\n", w, image.status().ToString().c_str());
      continue;
    }
    std::vector<Retired> beats;
    Iss iss(*image, IssOptions{});
    Retired b;
    while (iss.Step(&b)) beats.push_back(b);
    for (TraceMode mode : {TraceMode::kHtm, TraceMode::kBtm}) {
      double none_bytes = 0;
      for (const char* set : sets) {
        EncoderConfig cfg;
        cfg.mode = mode;
        cfg.features = *ParseFeatures(set, "features");
        ReferenceEncoder enc(cfg);
        enc.Open();
        for (const Retired& r : beats) enc.Beat(r);
        enc.Close();
        const TraceStats st = ComputeTraceStats(enc.bytes(), iss.retired());
        const double n = static_cast<double>(st.wire_bytes());
        if (none_bytes == 0) none_bytes = n;
        std::printf("| %s | %s | %s | %llu | %.3f | %.3f | %.1f%% |\n", w,
                    mode == TraceMode::kHtm ? "htm" : "btm", set,
                    static_cast<unsigned long long>(st.wire_bytes()),
                    st.PayloadBitsPerInstruction(), st.WireBitsPerInstruction(),
                    100.0 * (1.0 - n / none_bytes));
      }
    }
  }
  return 0;
}
