// PllModel: divider search (see pll.h).
#include "lab/pll.h"

#include <string>
#include <utility>

namespace ctte::lab {

Result<uint64_t> PllModel::Set(uint64_t hz) {
  const uint64_t min_hz = kVcoHz / (kMaxDivider * kMaxDivider);
  if (hz < min_hz || hz > kVcoHz) {
    return Status::InvalidArgument("clock request " + std::to_string(hz) + " Hz outside [" +
                                   std::to_string(min_hz) + ", " + std::to_string(kVcoHz) +
                                   "] Hz of the PLL");
  }
  // Smallest product N with VCO/N <= hz, i.e. N = ceil(VCO / hz); then the smallest N' >= N
  // that factors as D0*D1 with both in range.
  const uint64_t need = (kVcoHz + hz - 1) / hz;
  for (uint64_t n = need; n <= kMaxDivider * kMaxDivider; ++n) {
    for (uint32_t a = 1; a <= kMaxDivider; ++a) {
      if (n % a == 0 && n / a <= kMaxDivider) {
        // Prefer D0 as large as fits so D1 stays 1 for small products (like the power-on value).
        uint32_t d0 = a, d1 = static_cast<uint32_t>(n / a);
        if (d1 > d0) std::swap(d0, d1);
        d0_ = d0;
        d1_ = d1;
        return ReadBack();
      }
    }
  }
  return Status::InvalidArgument("clock request " + std::to_string(hz) + " Hz: no divider pair");
}

uint64_t PllModel::ReadBack() const { return kVcoHz / (static_cast<uint64_t>(d0_) * d1_); }

}  // namespace ctte::lab
