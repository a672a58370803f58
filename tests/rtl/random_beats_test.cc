// Differential test on random beat sequences: random itypes, sizes, traps, addresses, sync
// settings and pauses, paced slowly enough never to drop. The RTL's bytes must equal the
// reference encoder's. (I-CNT overflow is pinned by encoder_test.cc: the reference takes
// half-words from instruction sizes, so it cannot be driven there quickly.)
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/random.h"
#include "oracle/reference_encoder.h"
#include "tests/rtl/rtl_run.h"
#include "tests/rtl/rtl_test_util.h"

namespace ctte::rtl_test {
namespace {

oracle::Retired RandomBeat(Rng& rng, uint64_t* pc) {
  static constexpr oracle::IType kTypes[] = {
      oracle::IType::kNone, oracle::IType::kNone, oracle::IType::kNone,
      oracle::IType::kException, oracle::IType::kInterrupt, oracle::IType::kTrapReturn,
      oracle::IType::kNotTakenBranch, oracle::IType::kTakenBranch,
      oracle::IType::kTakenBranch, oracle::IType::kIndirectCall, oracle::IType::kDirectCall,
      oracle::IType::kIndirectJump, oracle::IType::kDirectJump, oracle::IType::kCoroutineSwap,
      oracle::IType::kReturn, oracle::IType::kOtherIndirectLink,
      oracle::IType::kOtherDirectLink};
  oracle::Retired r;
  r.itype = kTypes[rng.Below(sizeof kTypes / sizeof kTypes[0])];
  r.pc = *pc;
  const bool trap = r.itype == oracle::IType::kException || r.itype == oracle::IType::kInterrupt;
  r.retires = !trap;
  r.size = trap ? 0 : (rng.Below(2) ? 4 : 2);
  r.next_pc = r.pc + r.size;
  if (trap || r.itype != oracle::IType::kNone || rng.Below(8) == 0) {
    // Control transfer (or a random jump of the sequence): a fresh, far or near address.
    r.next_pc = rng.Below(2) ? (0x80000000ull + 2 * rng.Below(1u << 20))
                             : (rng.Next() & ~uint64_t{1});
  }
  *pc = r.next_pc;
  return r;
}

TEST(RandomBeatsTest, RtlMatchesReferenceEncoderOnRandomSequences) {
  for (uint64_t seed = 1; seed <= 24; ++seed) {
    Rng rng(seed);
    oracle::EncoderConfig cfg;
    cfg.mode = rng.Below(2) ? oracle::TraceMode::kHtm : oracle::TraceMode::kBtm;
    static constexpr uint8_t kSyncModes[] = {0, 1, 3};
    cfg.sync_mode = kSyncModes[rng.Below(3)];
    cfg.sync_max = static_cast<uint8_t>(rng.Below(3));
    SCOPED_TRACE("seed " + std::to_string(seed));

    std::unique_ptr<ImageHarness> h = LoadImage("ntrace-slim");
    ASSERT_NE(h, nullptr);
    h->Reset();
    oracle::ReferenceEncoder ref(cfg);
    const uint32_t mode = static_cast<uint32_t>(cfg.mode);
    auto control = [&](bool enable, bool tracing) {
      h->WriteReg(reg::kTeControl, ControlWord(enable, tracing, mode, cfg.sync_mode, cfg.sync_max));
    };
    control(true, true);
    ref.Open();
    bool open = true;
    uint64_t pc = 0x80000000;
    for (int i = 0; i < 3000; ++i) {
      if (rng.Below(400) == 0) {  // pause or resume
        open = !open;
        control(true, open);
        if (open) ref.Open(); else ref.Close();
      }
      oracle::Retired b = RandomBeat(rng, &pc);
      h->Beat(ToIngress(b));
      if (open) ref.Beat(b);
      h->Idle(static_cast<int>(4 + rng.Below(8)));
    }
    control(false, false);
    if (open) ref.Close();
    ASSERT_TRUE(h->Drain());
    EXPECT_EQ(h->ReadReg(reg::kOverflowEpisodes), 0u);
    EXPECT_EQ(FirstMessageDifference(h->bytes(), ref.bytes()), "");
    EXPECT_EQ(h->ReadReg(reg::kMsgCount), ref.messages());
    EXPECT_FALSE(h->failed()) << h->failure();
  }
}

}  // namespace
}  // namespace ctte::rtl_test
