// CorruptingBoard (see corrupting_board.h).
#include "lab/corrupting_board.h"

namespace ctte::lab {
namespace {

uint64_t SplitMix64(uint64_t x) {
  uint64_t z = x + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

Result<Capture> CorruptingBoard::Run(const RunPlan& plan) {
  Result<Capture> c = BoardWrapper::Run(plan);
  if (!c.ok() || c->bytes.empty()) return c;
  // The top 53 bits as a uniform double in [0, 1).
  const double u = static_cast<double>(SplitMix64(plan.model_seed ^ 0x7e57c0de5eedULL) >> 11) *
                   0x1.0p-53;
  if (u < fraction_) {
    c->bytes[c->bytes.size() / 2] ^= 0x5a;
    ++corrupted_;
  }
  return c;
}

}  // namespace ctte::lab
