// The campaign `features` axis (docs/campaign-spec.md, "The features axis"): its value checker
// and the clamp of a drawn feature set to the compiled features of the drawn image.
//
// A value is a set of optional compression features in the `--features` grammar
// (oracle/features.h): "none", or entries such as "implicit-return" / "implicit-return:16" /
// "repeated-history". Every entry is validated by oracle::ParseFeatures, so a feature the oracle
// learns is accepted here without a change in runner/. The canonical text lists the entries
// sorted by name, joined by ","; an entry without a parameter stays bare ("implicit-return":
// the image's own stack depth).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "lab/image_manifest.h"
#include "runner/campaign_spec.h"

namespace ctte::runner {

/// The entries of a canonical features value ("none" -> none).
std::vector<std::string> FeatureEntries(std::string_view value);

/// Whether image `m` compiles feature entry `entry`: its name is in the manifest's "features"
/// and a parameter, when given, is the image's (implicit-return:D needs return_stack_depth D).
/// Not ok: InvalidArgument saying which entry and why.
Status FeatureEntryOnImage(std::string_view entry, const lab::ImageManifest& m);

/// The clamp: the entries of `drawn` that image `m` compiles, in canonical text ("none" when
/// none is left); the entries dropped are appended to *dropped when it is not null.
std::string ClampFeatures(std::string_view drawn, const lab::ImageManifest& m,
                          std::vector<std::string>* dropped = nullptr);

/// Every control that fixes `features` is checked against its image's manifest (found as
/// PrepareRun finds it: manifest_path, else image_dir/<image>.manifest.json): a feature the
/// image does not compile is InvalidArgument "$.controls[k].axes.features: ...". Controls never
/// clamp a fixed value: a control that asked for a feature must run with it or not at all.
Status CheckControlFeatures(const CampaignSpec& spec, const std::string& image_dir,
                            const std::string& manifest_path);

namespace internal {
/// The spec checker of the features axis (runner/axis_values.h): a JSON array of entries
/// (`[]` = none) or a string in the `--features` grammar.
bool CheckFeaturesValue(const nlohmann::json& v, std::string* canonical, std::string* reason);
}  // namespace internal

}  // namespace ctte::runner
