// PLL model of the simulated board's clock generator (one instance per clock domain).
//
// A fixed VCO (kVcoHz = 1500 MHz, reference 25 MHz x 60) feeds two cascaded integer dividers,
// D0 and D1, each in [1, 63]: f = VCO / (D0 * D1). Set() picks the divider pair giving the
// highest frequency not above the request (the board never runs faster than asked); among
// equal products the smallest D0. A request below VCO/(63*63) or above VCO is refused.
// ReadBack() recomputes the frequency from the divider registers, as a board reads its clock
// control registers. Power-on: D0=15, D1=1 (100 MHz).
//
// The simulated board keeps time in units of half a VCO period (1/3000 MHz = 333.3 ps): a
// clock with divider product N has a half-period of exactly N units, so every ratio is exact.
#pragma once

#include <cstdint>

#include "base/status.h"

namespace ctte::lab {

class PllModel {
 public:
  static constexpr uint64_t kVcoHz = 1'500'000'000;
  static constexpr uint32_t kMaxDivider = 63;
  /// Picoseconds per time unit (half a VCO period), as a reduced fraction of 1e12 / (2 * kVcoHz).
  static constexpr uint64_t kPsNum = 1000, kPsDen = 3;
  static_assert(kPsNum * 2 * kVcoHz == 1'000'000'000'000ull * kPsDen);

  PllModel() = default;
  /// Programs the dividers for `hz`; returns the achieved frequency.
  Result<uint64_t> Set(uint64_t hz);
  uint64_t ReadBack() const;
  uint32_t d0() const { return d0_; }
  uint32_t d1() const { return d1_; }
  /// Half-period in time units (half VCO periods).
  uint64_t half_period_units() const { return static_cast<uint64_t>(d0_) * d1_; }

 private:
  uint32_t d0_ = 15;
  uint32_t d1_ = 1;
};

}  // namespace ctte::lab
