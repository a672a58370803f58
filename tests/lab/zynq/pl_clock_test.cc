// PL reference clock arithmetic against hand-computed values (docs/zynq-board.md, "Clock
// arithmetic"): requested -> source and dividers -> achieved; register encode/decode.
#include "lab/zynq/pl_clock.h"

#include <gtest/gtest.h>

namespace ctte::lab::zynq {
namespace {

const PlSourceRates kRates{1'500'000'000, 1'000'000'000, 0};

struct Row {
  uint64_t requested;
  PlSource source;
  uint32_t d0, d1;
  uint64_t achieved;
  uint32_t reg;
};

// By hand: N = ceil(source / request), the smallest N' >= N with D0*D1 = N', D0 >= D1 <= 63;
// f = floor(source / N'); the higher f wins, ties keep IOPLL.
const Row kTable[] = {
    // 1500/71.11 = 21.09 -> 22 -> 68.18 MHz; RPLL 1000/71.11 -> 15 -> 66.67 MHz: IOPLL
    {71'110'000, PlSource::kIopll, 22, 1, 68'181'818, 0x01011600},
    {100'000'000, PlSource::kIopll, 15, 1, 100'000'000, 0x01010F00},
    // 1500/94.4 = 15.9 -> 16 -> 93.75 MHz; RPLL -> 11 -> 90.9 MHz
    {94'400'000, PlSource::kIopll, 16, 1, 93'750'000, 0x01011000},
    // IOPLL -> 8 -> 187.5 MHz; RPLL -> 5 -> 200 MHz: RPLL
    {200'000'000, PlSource::kRpll, 5, 1, 200'000'000, 0x01010502},
    // IOPLL 1500/333 -> 5 -> 300 MHz; RPLL -> 4 -> 250 MHz
    {333'000'000, PlSource::kIopll, 5, 1, 300'000'000, 0x01010500},
    // N = 150 = 50 * 3 (150 and 75 exceed 63); RPLL 100 = 50 * 2 ties at 10 MHz: IOPLL kept
    {10'000'000, PlSource::kIopll, 50, 3, 10'000'000, 0x01033200},
    // N = 1500 = 60 * 25
    {1'000'000, PlSource::kIopll, 60, 25, 1'000'000, 0x01193C00},
};

TEST(PlClockTest, TableOfRequests) {
  for (const Row& r : kTable) {
    SCOPED_TRACE(r.requested);
    Result<PlClockSetting> s = ChoosePlClock(kRates, r.requested);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    EXPECT_EQ(s->source, r.source);
    EXPECT_EQ(s->divisor0, r.d0);
    EXPECT_EQ(s->divisor1, r.d1);
    EXPECT_EQ(*s->Rate(kRates), r.achieved);
    EXPECT_EQ(s->Encode(), r.reg);
    Result<PlClockSetting> back = PlClockSetting::Decode(r.reg);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back->Rate(kRates), r.achieved);
  }
}

TEST(PlClockTest, FirmwareValueIs100MHzFromIopll) {
  Result<PlClockSetting> s = PlClockSetting::Decode(kFirmwarePlRefCtrl);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->ToString(), "IOPLL/15/1");
  EXPECT_EQ(*s->Rate(kRates), 100'000'000u);
}

TEST(PlClockTest, RefusesWhatNoSourceReaches) {
  EXPECT_FALSE(ChoosePlClock(kRates, 2'000'000'000).ok());  // above every source
  EXPECT_FALSE(ChoosePlClock(kRates, 100'000).ok());        // below 1500 MHz / 3969
  EXPECT_FALSE(ChoosePlClock(kRates, 0).ok());
}

TEST(PlClockTest, DecodeRefusesReservedFields) {
  EXPECT_FALSE(PlClockSetting::Decode(0x01010F01).ok());  // SRCSEL 1 is reserved
  EXPECT_FALSE(PlClockSetting::Decode(0x01000F00).ok());  // DIVISOR1 0
  Result<PlClockSetting> stopped = PlClockSetting::Decode(0x00010F00);
  ASSERT_TRUE(stopped.ok());
  EXPECT_EQ(*stopped->Rate(kRates), 0u);
  PlSourceRates no_rpll{1'500'000'000, 0, 0};
  EXPECT_FALSE(PlClockSetting::Decode(0x01010502)->Rate(no_rpll).ok());  // RPLL unknown
}

}  // namespace
}  // namespace ctte::lab::zynq
