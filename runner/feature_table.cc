// The feature table and the checks it drives (see feature_table.h).
#include "runner/feature_table.h"

#include <algorithm>
#include <string>

#include "base/text.h"
#include "regmap/registers.h"

namespace ctte::runner {
namespace {

constexpr uint32_t kImplicitReturnMode3 = 3u << reg::kFeatImplicitReturnModeLsb;
constexpr uint32_t kImplicitReturnModeMask = ((1u << reg::kFeatImplicitReturnModeWidth) - 1)
                                             << reg::kFeatImplicitReturnModeLsb;
constexpr uint32_t kDepthMask = ((1u << reg::kFeatureCapReturnStackDepthWidth) - 1)
                                << reg::kFeatureCapReturnStackDepthLsb;

// One row per optional feature (docs/encoder-behaviour.md section 11). A new feature: its
// regmap.json fields, then one row here.
constexpr FeatureRow kRows[] = {
    {"implicit-return", reg::kFeatureCapImplicitReturn, reg::kFeatEnImplicitReturn,
     kImplicitReturnModeMask, kImplicitReturnMode3,
     [](const oracle::FeatureSet& f) { return f.implicit_return_depth > 0; }},
    {"repeated-history", reg::kFeatureCapRepeatedHistory, reg::kFeatEnRepeatedHistory, 0, 0,
     [](const oracle::FeatureSet& f) { return f.repeated_history; }},
    {"repeat-branch", reg::kFeatureCapRepeatBranch, reg::kFeatEnRepeatBranch, 0, 0,
     [](const oracle::FeatureSet& f) { return f.repeat_branch; }},
    {"sequential-jump", reg::kFeatureCapSequentialJump, reg::kFeatEnSequentialJump, 0, 0,
     [](const oracle::FeatureSet& f) { return f.sequential_jump; }},
    {"full-address", reg::kFeatureCapFullAddress, reg::kFeatNoAddrDiff, 0, 0,
     [](const oracle::FeatureSet& f) { return f.full_address; }},
    {"config-message", reg::kFeatureCapConfigMessage, reg::kFeatEnConfigMessage, 0, 0,
     [](const oracle::FeatureSet& f) { return f.config_message; }},
};

// "bit 4" or "bits 7:6" for a contiguous mask.
std::string BitsText(uint32_t mask) {
  const int lo = __builtin_ctz(mask);
  const int hi = 31 - __builtin_clz(mask);
  return lo == hi ? "bit " + std::to_string(lo)
                  : "bits " + std::to_string(hi) + ":" + std::to_string(lo);
}

bool Listed(const lab::ImageManifest& m, std::string_view name) {
  return std::find(m.features.begin(), m.features.end(), name) != m.features.end();
}

const std::string kCapsReg = "ctteFeatureCaps (" + HexShort(reg::kFeatureCaps) + ")";
const std::string kFeatReg = "trTeInstFeatures (" + HexShort(reg::kTeInstFeatures) + ")";

}  // namespace

std::span<const FeatureRow> FeatureTable() { return kRows; }

const FeatureRow* FindFeature(std::string_view name) {
  for (const FeatureRow& r : kRows) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

uint32_t FeatureEnables(const oracle::FeatureSet& f) {
  uint32_t bits = 0;
  for (const FeatureRow& r : kRows) {
    if (r.requested(f)) bits |= r.enable_bits;
  }
  return bits;
}

Status CheckFeaturesCompiled(const oracle::FeatureSet& f, const lab::ImageManifest& m,
                             std::string_view what) {
  for (const FeatureRow& r : kRows) {
    if (r.requested(f) && (m.feature_caps & r.cap_bit) == 0) {
      return Status::InvalidArgument(std::string(what) + ": image " + m.name +
                                     " does not compile " + std::string(r.name) +
                                     " (ctteFeatureCaps " + BitsText(r.cap_bit) + " clear)");
    }
  }
  return Status::Ok();
}

Status CheckDeployedFeatures(const lab::ImageManifest& m, uint32_t caps, uint32_t feat) {
  const std::string image = "image " + m.name + ": ";
  uint32_t known = kDepthMask;
  for (const FeatureRow& r : kRows) {
    known |= r.cap_bit;
    const bool compiled = (caps & r.cap_bit) != 0;
    const std::string name(r.name);
    if (!compiled && Listed(m, r.name)) {
      return Status::InvalidArgument(image + "the manifest lists feature " + name + ", but " +
                                     kCapsReg + " " + BitsText(r.cap_bit) +
                                     " reads 0: the design does not compile it");
    }
    if (compiled && !Listed(m, r.name)) {
      return Status::InvalidArgument(image + kCapsReg + " " + BitsText(r.cap_bit) + " (" + name +
                                     ") reads 1, but the manifest's features do not list " +
                                     name);
    }
    if (const uint32_t want = compiled ? r.param_value : 0; (feat & r.param_mask) != want) {
      return Status::InvalidArgument(image + kFeatReg + " " + BitsText(r.param_mask) + " (" +
                                     name + ") read " + HexShort((feat & r.param_mask) >>
                                                                 __builtin_ctz(r.param_mask)) +
                                     ", expected " +
                                     HexShort(want >> __builtin_ctz(r.param_mask)) +
                                     (compiled ? " (compiled in)" : " (not compiled)"));
    }
  }
  for (const std::string& f : m.features) {
    if (FindFeature(f) == nullptr) {
      return Status::InvalidArgument(image + "the manifest lists feature " + f +
                                     ", which no row of the feature table knows "
                                     "(runner/feature_table.cc): it cannot be checked against " +
                                     kCapsReg);
    }
  }
  if (const uint32_t unknown = caps & ~known; unknown != 0) {
    return Status::InvalidArgument(image + kCapsReg + " " + BitsText(unknown & -unknown) +
                                   " reads 1, and no feature of the table has that bit");
  }
  const uint32_t depth = (caps & kDepthMask) >> reg::kFeatureCapReturnStackDepthLsb;
  if (depth != m.return_stack_depth) {
    return Status::InvalidArgument(image + kCapsReg + " " + BitsText(kDepthMask) +
                                   " (return stack depth) read " + std::to_string(depth) +
                                   ", manifest return_stack_depth " +
                                   std::to_string(m.return_stack_depth));
  }
  if (caps != m.feature_caps) {
    return Status::InvalidArgument(image + kCapsReg + " reads " + HexShort(caps) +
                                   ", manifest feature_caps " + HexShort(m.feature_caps));
  }
  return Status::Ok();
}

Status CheckEnablesHeld(const lab::ImageManifest& m, uint32_t wrote, uint32_t read) {
  for (const FeatureRow& r : kRows) {
    const uint32_t want = wrote & r.enable_bits;
    if (want != 0 && (read & r.enable_bits) != want) {
      return Status::InvalidArgument("image " + m.name + ": the " + std::string(r.name) +
                                     " enable did not hold: wrote " + HexShort(wrote) + " to " +
                                     kFeatReg + ", read back " + HexShort(read) + " (" +
                                     BitsText(r.enable_bits) + " clear; WARL: the design " +
                                     "did not take it)");
    }
  }
  uint32_t all = 0;
  for (const FeatureRow& r : kRows) all |= r.enable_bits;
  if (const uint32_t other = wrote & ~all; other != 0) {
    // Not reachable from a plan (its enables come from the table), but a plan read from the
    // wire may carry any value: a bit no row knows is not checked, so it is refused.
    return Status::InvalidArgument("image " + m.name + ": " + kFeatReg + " " +
                                   BitsText(other & -other) + " is no feature's enable");
  }
  return Status::Ok();
}

}  // namespace ctte::runner
