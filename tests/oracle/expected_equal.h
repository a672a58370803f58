// Field-by-field equality of two oracle::Expected (the reference of a run), for the tests that
// hold a shared or cached reference against the uncached computation: reference_trace_test.cc
// and tests/runner/reference_cache_test.cc.
#pragma once

#include <gtest/gtest.h>

#include "oracle/run_facts.h"

namespace ctte::oracle::test_support {

inline void ExpectSameExpected(const Expected& x, const Expected& y) {
  EXPECT_EQ(x.pcs, y.pcs);
  EXPECT_EQ(x.halfwords, y.halfwords);
  ASSERT_EQ(x.windows.size(), y.windows.size());
  for (size_t i = 0; i < x.windows.size(); ++i) {
    EXPECT_EQ(x.windows[i].begin, y.windows[i].begin);
    EXPECT_EQ(x.windows[i].end, y.windows[i].end);
    EXPECT_EQ(x.windows[i].begin_beat, y.windows[i].begin_beat);
    EXPECT_EQ(x.windows[i].end_beat, y.windows[i].end_beat);
    EXPECT_EQ(x.windows[i].has_beats, y.windows[i].has_beats);
    EXPECT_EQ(x.windows[i].open_pc, y.windows[i].open_pc);
    EXPECT_EQ(x.windows[i].after_pause, y.windows[i].after_pause);
  }
  EXPECT_EQ(x.stopped, y.stopped);
  EXPECT_EQ(x.mode, y.mode);
  EXPECT_EQ(x.sync_mode, y.sync_mode);
  EXPECT_EQ(x.features, y.features);
  EXPECT_EQ(x.xlen, y.xlen);
  EXPECT_EQ(x.beats, y.beats);
  EXPECT_EQ(x.retired, y.retired);
  EXPECT_EQ(x.stop_reason, y.stop_reason);
  EXPECT_EQ(x.core_stop, y.core_stop);
  EXPECT_EQ(x.reference_stream, y.reference_stream);
  ASSERT_EQ(x.Beats().size(), y.Beats().size());
  for (size_t i = 0; i < x.Beats().size(); ++i) {
    const TraceBeat& a = x.Beats()[i];
    const TraceBeat& b = y.Beats()[i];
    ASSERT_TRUE(a.pc == b.pc && a.insn == b.insn && a.size == b.size && a.itype == b.itype &&
                a.retires == b.retires)
        << "beat " << i;
  }
  EXPECT_EQ(x.encoder.sync_max, y.encoder.sync_max);
  EXPECT_EQ(x.encoder.icnt_bits, y.encoder.icnt_bits);
  EXPECT_EQ(x.encoder.compiled_features, y.encoder.compiled_features);
}

}  // namespace ctte::oracle::test_support
