// libFuzzer target for the N-Trace reader and reconstruction. The input's first 64 bytes are
// the code at 0x80000000 (so reconstruction also walks arbitrary instructions), the rest is the
// trace stream. Any crash, sanitizer report or hang is a bug: corrupt input must only ever
// produce Reporter calls and decode-error markers.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "oracle/ntrace_reader.h"
#include "oracle/program_image.h"
#include "oracle/reconstruct.h"

namespace {

class NullSink : public ctte::oracle::PcSink {
 public:
  void OnPcs(const uint64_t*, size_t n) override { count += n; }
  void OnMarker(const ctte::oracle::Marker&) override { ++markers; }
  uint64_t count = 0, markers = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ctte::oracle;
  constexpr size_t kCode = 64;
  Segment seg;
  seg.vaddr = 0x80000000ULL;
  seg.memsz = kCode;
  seg.executable = true;
  seg.bytes.assign(kCode, 0);
  const size_t code = size < kCode ? size : kCode;
  if (code > 0) std::memcpy(seg.bytes.data(), data, code);
  std::vector<Segment> segs;
  segs.push_back(std::move(seg));
  const ProgramImage image = ProgramImage::FromSegments(0x80000000ULL, std::move(segs));
  DecodeOptions opt;
  opt.reconstruct.max_walk_halfwords = 1u << 16;
  NullSink sink;
  DecodeStream(std::span<const uint8_t>(data + code, size - code), image, opt, &sink);
  return 0;
}
