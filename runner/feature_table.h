// The optional encoder features, one row each (docs/board-protocol.md, "Feature capabilities at
// deploy"): the `--features` name (also the image manifest's "features" entry) <-> the
// ctteFeatureCaps bit that says the image compiles it <-> the trTeInstFeatures enable bit(s) a
// run sets to turn it on. Everything the runner does with a feature goes through this table:
// the plan's enables (runner/plan.cc), the refusal of a feature the image lacks, the deploy
// check of the design's capability register against its manifest and the WARL read-back of the
// enables. Adding a feature is one row in feature_table.cc (the reg:: constants come from
// regmap/regmap.json).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "base/status.h"
#include "lab/image_manifest.h"
#include "oracle/features.h"

namespace ctte::runner {

struct FeatureRow {
  std::string_view name;  ///< the `--features` / manifest name, e.g. "implicit-return"
  uint32_t cap_bit;       ///< its ctteFeatureCaps bit (a reg::kFeatureCap* mask, one bit)
  uint32_t enable_bits;   ///< its trTeInstFeatures enable bit(s) (reg::kFeatEn*)
  /// trTeInstFeatures read-only field(s) the design sets when the feature is compiled in, and
  /// their value then (0 when not compiled): implicit return's ImplicitReturnMode reads 3.
  uint32_t param_mask;
  uint32_t param_value;
  /// Whether a parsed feature set asks for the feature.
  bool (*requested)(const oracle::FeatureSet& f);
};

/// The rows, in ctteFeatureCaps bit order.
std::span<const FeatureRow> FeatureTable();
/// The row named `name`, or nullptr.
const FeatureRow* FindFeature(std::string_view name);

/// The trTeInstFeatures enables of `f` (the OR of its rows' enable bits).
uint32_t FeatureEnables(const oracle::FeatureSet& f);

/// A feature of `f` whose ctteFeatureCaps bit the manifest's feature_caps lacks is refused:
/// InvalidArgument "WHAT: image NAME does not compile FEATURE (ctteFeatureCaps bit N clear)".
Status CheckFeaturesCompiled(const oracle::FeatureSet& f, const lab::ImageManifest& m,
                             std::string_view what);

/// The deploy check: what the loaded design reports (`feature_caps` read from ctteFeatureCaps,
/// `inst_features` from trTeInstFeatures) against what manifest `m` claims. Not ok
/// (InvalidArgument naming the image, the register, the bit and the feature) when a row's cap
/// bit and the manifest's "features" disagree either way, a row's read-only trTeInstFeatures
/// field is wrong, the manifest lists a feature no row knows, a set cap bit belongs to no row,
/// the return-stack depth (ctteFeatureCaps bits 13:8) differs from return_stack_depth, or the
/// register differs from the manifest's feature_caps. (The enables are not checked here: a board
/// that keeps its image between runs keeps the last run's enables.)
Status CheckDeployedFeatures(const lab::ImageManifest& m, uint32_t feature_caps,
                             uint32_t inst_features);

/// The WARL read-back: `wrote` went to trTeInstFeatures and `read` came back. Not ok
/// (InvalidArgument naming the image, the bit and the feature) when an enable written did not
/// hold.
Status CheckEnablesHeld(const lab::ImageManifest& m, uint32_t wrote, uint32_t read);

}  // namespace ctte::runner
