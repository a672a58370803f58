// RunBoardSession (see board_session.h for the rules and their order).
#include "runner/board_session.h"

#include "base/text.h"
#include "runner/feature_table.h"

namespace ctte::runner {
namespace {

// The cause of a failed board call in `step`: a death or hang wins over the step.
InfraCause CauseOf(const Status& s, InfraCause step) {
  switch (lab::ClassifyFailure(s)) {
    case lab::FailureKind::kBoardDied: return InfraCause::kBoardDied;
    case lab::FailureKind::kBoardTimeout: return InfraCause::kBoardTimeout;
    default: return step;
  }
}

// A design register by offset; 0 when the manifest's register map exists and does not name it
// (a register the map does not name is absent from the design, docs/zynq-board.md).
Result<uint32_t> ReadDesignReg(lab::Board& board, const lab::ImageManifest& m, const char* name,
                               uint32_t offset) {
  if (!m.registers.empty() && m.registers.count(name) == 0) return 0u;
  return board.ReadReg(offset);
}

}  // namespace

BoardSession RunBoardSession(lab::Board& board, const lab::ImageManifest& manifest,
                             uint64_t fabric_hz, uint64_t sink_hz, const lab::RunPlan& plan,
                             const SessionOptions& o) {
  BoardSession out;
  const auto infra = [&](InfraCause cause, const std::string& why) {
    out.end = BoardSession::End::kInfra;
    out.cause = cause;
    out.reason = why;
    return std::move(out);
  };
  Result<lab::DeployReceipt> receipt = board.Deploy(manifest.ToDeployRequest());
  if (!receipt.ok()) {
    return infra(CauseOf(receipt.status(), InfraCause::kDeploy),
                 "deploy of " + manifest.image_path + ": " + receipt.status().ToString());
  }
  out.receipt = *receipt;
  if (Status s = lab::CheckReceipt(manifest, *receipt); !s.ok()) {
    return infra(InfraCause::kDeploy, "deploy of " + manifest.image_path + ": " + s.ToString());
  }
  // What the design itself reports must match what the manifest claims (the closure gate
  // trusts the manifest's fmax, which the design cannot report).
  if (receipt->caps != manifest.caps) {
    return infra(InfraCause::kManifestMismatch,
                 "manifest mismatch: image " + manifest.name + " reports ctteCaps " +
                     std::to_string(receipt->caps) + ", manifest caps " +
                     std::to_string(manifest.caps));
  }
  if (const uint32_t xlen = (receipt->profile >> 8) & 0xff;
      manifest.xlen != 0 && xlen != manifest.xlen) {
    return infra(InfraCause::kManifestMismatch,
                 "manifest mismatch: image " + manifest.name + " reports xlen " +
                     std::to_string(xlen) + " (ctteProfile), manifest xlen " +
                     std::to_string(manifest.xlen));
  }
  // 1c. The design's feature capabilities against the manifest's features (feature_table.h).
  Result<uint32_t> fcaps = ReadDesignReg(board, manifest, "ctteFeatureCaps", reg::kFeatureCaps);
  Result<uint32_t> feat = fcaps.ok() ? ReadDesignReg(board, manifest, "trTeInstFeatures",
                                                     reg::kTeInstFeatures)
                                     : fcaps;
  if (!feat.ok()) {
    return infra(CauseOf(feat.status(), InfraCause::kDeploy),
                 "deploy of " + manifest.image_path + ": reading the feature registers: " +
                     feat.status().ToString());
  }
  if (Status s = CheckDeployedFeatures(manifest, *fcaps, *feat); !s.ok()) {
    return infra(InfraCause::kManifestMismatch, "manifest mismatch: " + s.message());
  }
  Result<lab::BoardIdentity> id = board.Identify();
  if (!id.ok()) {
    return infra(CauseOf(id.status(), InfraCause::kIdentity), "identify: " + id.status().ToString());
  }
  out.identity = *id;
  if (!id->image_sha256.empty() && id->image_sha256 != receipt->sha256) {
    return infra(InfraCause::kIdentity, "identity: the board reports image " + id->image_sha256 +
                                            ", deployed " + receipt->sha256);
  }
  struct Dom { lab::ClockDomain d; uint64_t hz; db::ClockReading* rd; const char* name; };
  Dom doms[2] = {{lab::ClockDomain::kFabric, fabric_hz, &out.fabric, "fabric"},
                 {lab::ClockDomain::kSink, sink_hz, &out.sink, "sink"}};
  for (Dom& d : doms) {
    d.rd->requested_hz = d.hz;
    Result<uint64_t> prog = board.SetClock(d.d, d.hz);
    if (!prog.ok()) {
      return infra(CauseOf(prog.status(), InfraCause::kClock),
                   std::string("set clock ") + d.name + ": " + prog.status().ToString());
    }
    d.rd->programmed_hz = *prog;
    Result<uint64_t> read = board.ReadClock(d.d);
    if (!read.ok()) {
      return infra(CauseOf(read.status(), InfraCause::kClock),
                   std::string("read clock ") + d.name + ": " + read.status().ToString());
    }
    d.rd->read_back_hz = *read;
  }
  const double fmax_hz = manifest.fmax_mhz * 1e6;
  const uint64_t fabric_read = *out.fabric.read_back_hz;
  if (fmax_hz > 0 && (static_cast<double>(*out.fabric.programmed_hz) > fmax_hz ||
                      static_cast<double>(fabric_read) > fmax_hz)) {
    return infra(InfraCause::kClosureGate,
                 "closure gate: fabric clock " + std::to_string(fabric_read) +
                     " Hz is above the image's declared fmax " +
                     std::to_string(manifest.fmax_mhz) + " MHz; refused to run");
  }
  for (Dom& d : doms) {
    const uint64_t p = *d.rd->programmed_hz, rb = *d.rd->read_back_hz;
    const uint64_t diff = p > rb ? p - rb : rb - p;
    if (p == 0 || diff * 1'000'000 > p * o.clock_tolerance_ppm) {
      out.end = BoardSession::End::kInvalid;
      out.reason = std::string(d.name) + " clock read back " + std::to_string(rb) +
                   " Hz, programmed " + std::to_string(p) + " Hz: outside " +
                   std::to_string(o.clock_tolerance_ppm) + " ppm";
      return out;
    }
  }
  // 5b. WARL: the enables the plan asks for must hold in trTeInstFeatures. Written, read back,
  // and the reset value written again (Run() starts from reset and programs them itself).
  if (const uint32_t want = plan.encoder.inst_features; want != 0) {
    Status w = board.WriteReg(reg::kTeInstFeatures, want);
    Result<uint32_t> back = w.ok() ? board.ReadReg(reg::kTeInstFeatures) : Result<uint32_t>(w);
    if (back.ok()) w = board.WriteReg(reg::kTeInstFeatures, 0);
    if (!back.ok() || !w.ok()) {
      const Status& bad = back.ok() ? w : back.status();
      return infra(CauseOf(bad, InfraCause::kBoardError),
                   "feature enables " + HexShort(want) + ": " + bad.ToString());
    }
    if (Status s = CheckEnablesHeld(manifest, want, *back); !s.ok()) {
      return infra(InfraCause::kManifestMismatch, "feature enables: " + s.message());
    }
  }
  Result<lab::Capture> cap = board.Run(plan);
  if (!cap.ok()) {
    if (lab::ClassifyFailure(cap.status()) == lab::FailureKind::kRtlAssertion) {
      out.end = BoardSession::End::kRtlAssertion;
      out.reason = cap.status().message();
      return out;
    }
    return infra(CauseOf(cap.status(), InfraCause::kBoardError), "run: " + cap.status().ToString());
  }
  out.capture = std::move(*cap);
  out.end = BoardSession::End::kCaptured;
  return out;
}

}  // namespace ctte::runner
