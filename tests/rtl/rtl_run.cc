#include "tests/rtl/rtl_run.h"

#include "base/random.h"
#include "tests/rtl/rtl_test_util.h"

namespace ctte::rtl_test {

IssRun RunIss(const oracle::ProgramImage& image, const oracle::IssOptions& options) {
  IssRun r;
  oracle::Iss iss(image, options);
  oracle::Retired b;
  while (iss.Step(&b)) {
    r.beats.push_back(b);
    if (b.retires) r.pcs.push_back(b.pc);
  }
  if (iss.stop_reason() == oracle::StopReason::kFatal) r.error = iss.fatal_message();
  return r;
}

ctte_ingress ToIngress(const oracle::Retired& r) {
  ctte_ingress b{};
  b.valid = 1;
  b.itype = static_cast<uint8_t>(r.itype);
  b.iaddr = r.pc;
  b.iretire = r.iretire();
  b.ilastsize = r.size == 4 ? 1 : 0;
  b.priv = r.priv;
  b.cause = r.cause;
  b.tval = r.tval;
  b.insn = r.insn;
  return b;
}

RtlRunResult RunThroughImage(const std::string& name, const std::vector<oracle::Retired>& beats,
                             const RtlRunOptions& options) {
  RtlRunResult res;
  oracle::ReferenceEncoder ref(options.encoder);
  ref.Open();
  for (const oracle::Retired& b : beats) ref.Beat(b);
  ref.Close();
  res.reference_bytes = ref.bytes();

  ImageHarness::Options ho;
  ho.fabric_period = 10;
  ho.sink_period = options.sink_period;
  ho.seed = options.seed;
  std::unique_ptr<ImageHarness> h = LoadImage(name, ho);
  if (h == nullptr) return res;
  Rng stall_rng(options.seed);
  Rng sink_rng(options.seed ^ 0x5eed5eed5eedull);
  const double accept = options.sink_accept;
  if (accept < 1.0) h->set_sink_ready([&sink_rng, accept] { return sink_rng.Unit() < accept; });
  h->Reset();
  const uint32_t mode = static_cast<uint32_t>(options.encoder.mode);
  if (!options.encoder.features.empty()) {
    // Section 11: the enables are written while the window is closed, before trTeEnable.
    const oracle::FeatureSet& f = options.encoder.features;
    h->WriteReg(reg::kTeInstFeatures,
                (f.implicit_return_depth > 0 ? reg::kFeatEnImplicitReturn : 0u) |
                    (f.repeated_history ? reg::kFeatEnRepeatedHistory : 0u) |
                    (f.repeat_branch ? reg::kFeatEnRepeatBranch : 0u) |
                    (f.sequential_jump ? reg::kFeatEnSequentialJump : 0u) |
                    (f.full_address ? reg::kFeatNoAddrDiff : 0u) |
                    (f.config_message ? reg::kFeatEnConfigMessage : 0u));
  }
  h->WriteReg(reg::kTeControl,
              ControlWord(true, true, mode, options.encoder.sync_mode, options.encoder.sync_max));
  for (const oracle::Retired& b : beats) {
    h->Beat(ToIngress(b));
    if (options.max_stall > 0) h->Idle(static_cast<int>(stall_rng.Below(options.max_stall + 1)));
  }
  h->WriteReg(reg::kTeControl,
              ControlWord(false, false, mode, options.encoder.sync_mode, options.encoder.sync_max));
  h->set_sink_ready(nullptr);  // the sink drains at full speed after the stop
  res.drained = h->Drain(1 << 22);
  res.rtl_bytes = h->bytes();
  res.msg_count = h->ReadReg(reg::kMsgCount);
  res.byte_count = h->ReadReg(reg::kByteCount);
  res.overflow_episodes = h->ReadReg(reg::kOverflowEpisodes);
  res.records_dropped = h->ReadReg(reg::kRecordsDropped);
  res.halfwords_retired = h->ReadReg(reg::kHalfwordsRetired);
  res.control = h->ReadReg(reg::kTeControl);
  res.fabric_cycles = h->fabric_cycles();
  if (h->failed()) res.failure = h->failure();
  return res;
}

}  // namespace ctte::rtl_test
