// PL reference clock arithmetic (see pl_clock.h).
#include "lab/zynq/pl_clock.h"

#include <utility>

#include "base/text.h"

namespace ctte::lab::zynq {

namespace {
constexpr uint32_t kMaxDiv = 63;

// The divider pair for product >= need, or false.
bool Factor(uint64_t need, uint32_t* d0, uint32_t* d1) {
  for (uint64_t n = need == 0 ? 1 : need; n <= kMaxDiv * kMaxDiv; ++n) {
    for (uint32_t a = 1; a <= kMaxDiv; ++a) {
      if (n % a == 0 && n / a <= kMaxDiv) {
        uint32_t x = a, y = static_cast<uint32_t>(n / a);
        if (y > x) std::swap(x, y);
        *d0 = x;
        *d1 = y;
        return true;
      }
    }
  }
  return false;
}
}  // namespace

const char* PlSourceName(PlSource s) {
  switch (s) {
    case PlSource::kIopll: return "IOPLL";
    case PlSource::kRpll: return "RPLL";
    case PlSource::kDpll: return "DPLL";
  }
  return "?";
}

uint64_t PlSourceRates::Of(PlSource s) const {
  switch (s) {
    case PlSource::kIopll: return iopll_hz;
    case PlSource::kRpll: return rpll_hz;
    case PlSource::kDpll: return dpll_hz;
  }
  return 0;
}

uint32_t PlClockSetting::Encode() const {
  return (active ? 1u << 24 : 0u) | (divisor1 & 0x3f) << 16 | (divisor0 & 0x3f) << 8 |
         static_cast<uint32_t>(source);
}

Result<PlClockSetting> PlClockSetting::Decode(uint32_t value) {
  PlClockSetting s;
  const uint32_t src = value & 7;
  if (src != 0 && src != 2 && src != 3) {
    return Status::InvalidArgument("PL_REF_CTRL " + HexShort(value) + ": SRCSEL " +
                                   std::to_string(src) + " is reserved");
  }
  s.source = static_cast<PlSource>(src);
  s.divisor0 = (value >> 8) & 0x3f;
  s.divisor1 = (value >> 16) & 0x3f;
  s.active = ((value >> 24) & 1) != 0;
  if (s.divisor0 == 0 || s.divisor1 == 0) {
    return Status::InvalidArgument("PL_REF_CTRL " + HexShort(value) + ": a divisor is 0");
  }
  return s;
}

Result<uint64_t> PlClockSetting::Rate(const PlSourceRates& rates) const {
  const uint64_t src = rates.Of(source);
  if (src == 0) {
    return Status::NotFound(std::string("PL clock source ") + PlSourceName(source) +
                            ": its rate is not known (no clk_rate for it)");
  }
  if (!active) return uint64_t{0};
  return src / (static_cast<uint64_t>(divisor0) * divisor1);
}

std::string PlClockSetting::ToString() const {
  return std::string(PlSourceName(source)) + "/" + std::to_string(divisor0) + "/" +
         std::to_string(divisor1) + (active ? "" : " (stopped)");
}

Result<PlClockSetting> ChoosePlClock(const PlSourceRates& rates, uint64_t hz) {
  if (hz == 0) return Status::InvalidArgument("PL clock request of 0 Hz");
  bool found = false;
  PlClockSetting best;
  uint64_t best_hz = 0;
  for (PlSource s : {PlSource::kIopll, PlSource::kRpll, PlSource::kDpll}) {
    const uint64_t src = rates.Of(s);
    if (src == 0 || hz > src) continue;
    uint32_t d0 = 0, d1 = 0;
    if (!Factor((src + hz - 1) / hz, &d0, &d1)) continue;
    const uint64_t f = src / (static_cast<uint64_t>(d0) * d1);
    if (!found || f > best_hz) {
      found = true;
      best_hz = f;
      best = PlClockSetting{s, d0, d1, true};
    }
  }
  if (!found) {
    return Status::InvalidArgument("PL clock request " + std::to_string(hz) +
                                   " Hz: no source (IOPLL " + std::to_string(rates.iopll_hz) +
                                   ", RPLL " + std::to_string(rates.rpll_hz) + ", DPLL " +
                                   std::to_string(rates.dpll_hz) +
                                   " Hz) reaches it with dividers 1..63");
  }
  return best;
}

}  // namespace ctte::lab::zynq
