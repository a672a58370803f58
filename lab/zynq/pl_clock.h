// The programmable-logic reference clocks of a Zynq UltraScale+ (PL0_REF_CTRL for the fabric
// clock, PL1_REF_CTRL for the sink clock), per the UG1087 register reference (CRL_APB module,
// base 0xFF5E0000):
//
//   PL0_REF_CTRL @ 0xFF5E00C0, PL1_REF_CTRL @ 0xFF5E00C4 (field mask 0x013F3F07):
//     bit  24     CLKACT    clock active (0 stops the clock)
//     bits 21:16  DIVISOR1  6-bit divider, 1..63
//     bits 13:8   DIVISOR0  6-bit divider, 1..63
//     bits 2:0    SRCSEL    000 = IOPLL, 010 = RPLL, 011 = DPLL (DPLL_TO_LPD)
//   f = f(source) / (DIVISOR0 * DIVISOR1)   (the two dividers are cascaded)
//
// The boot firmware (psu_init) leaves 0x01010F00: IOPLL / 15 / 1 = 100 MHz with the usual
// 1500 MHz IOPLL. Choose() picks, over the available sources in the order IOPLL, RPLL, DPLL,
// the setting with the highest frequency not above the request (ties keep the earlier source),
// the divider pair by the rule the simulated board's PLL uses (lab/pll.h): the smallest
// product N >= ceil(f(source) / request) that factors into two dividers in range, DIVISOR0 the
// larger. Frequencies are whole Hz, floor(f(source) / N). docs/zynq-board.md works an example.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"

namespace ctte::lab::zynq {

inline constexpr uint64_t kCrlApbBase = 0xFF5E0000;
inline constexpr uint32_t kPl0RefCtrl = 0xC0;  ///< offset in CRL_APB
inline constexpr uint32_t kPl1RefCtrl = 0xC4;
inline constexpr uint32_t kPlRefCtrlMask = 0x013F3F07;
inline constexpr uint32_t kFirmwarePlRefCtrl = 0x01010F00;  ///< psu_init: IOPLL/15/1

enum class PlSource : uint32_t { kIopll = 0, kRpll = 2, kDpll = 3 };
const char* PlSourceName(PlSource s);  ///< "IOPLL", "RPLL", "DPLL"

struct PlSourceRates {
  uint64_t iopll_hz = 0, rpll_hz = 0, dpll_hz = 0;  ///< 0 = not available
  uint64_t Of(PlSource s) const;
};

struct PlClockSetting {
  PlSource source = PlSource::kIopll;
  uint32_t divisor0 = 15, divisor1 = 1;
  bool active = true;

  uint32_t Encode() const;  ///< the register value (fields only, within kPlRefCtrlMask)
  /// Decodes a register value; InvalidArgument for a reserved SRCSEL or a zero divider.
  static Result<PlClockSetting> Decode(uint32_t value);
  /// floor(rate / (D0 * D1)); 0 when the clock is stopped. NotFound when the source's rate is
  /// not known.
  Result<uint64_t> Rate(const PlSourceRates& rates) const;
  std::string ToString() const;  ///< "IOPLL/22/1"
};

/// The setting for `hz` (see the header comment); InvalidArgument when no source reaches it.
Result<PlClockSetting> ChoosePlClock(const PlSourceRates& rates, uint64_t hz);

}  // namespace ctte::lab::zynq
