// FeatureSet parsing and formatting (docs/encoder-behaviour.md section 11).
#include "oracle/features.h"

#include "base/text.h"

namespace ctte::oracle {

Result<FeatureSet> ParseFeatures(std::string_view text, std::string_view what,
                                 uint32_t default_depth) {
  FeatureSet f;
  if (text.empty() || text == "none") return f;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t comma = text.find(',', pos);
    const std::string_view item =
        text.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    const size_t colon = item.find(':');
    const std::string_view name = item.substr(0, colon);
    const std::string where = std::string(what) + ": '" + std::string(item) + "'";
    if (name == "implicit-return") {
      uint64_t depth = default_depth;
      if (colon != std::string_view::npos) {
        Result<uint64_t> d = ParseDecimal64(item.substr(colon + 1), where);
        if (!d.ok()) return d.status();
        depth = *d;
      }
      if (depth < 1 || depth > kMaxReturnStackDepth) {
        return Status::InvalidArgument(where + ": the stack depth must be 1..32");
      }
      f.implicit_return_depth = static_cast<uint32_t>(depth);
    } else if (name == "repeated-history") {
      f.repeated_history = true;
    } else if (name == "repeat-branch") {
      f.repeat_branch = true;
    } else if (name == "sequential-jump") {
      f.sequential_jump = true;
    } else if (name == "full-address") {
      f.full_address = true;
    } else if (name == "config-message") {
      f.config_message = true;
    } else {
      return Status::InvalidArgument(
          where + ": unknown feature (implicit-return[:DEPTH], repeated-history, repeat-branch, "
                  "sequential-jump, full-address, config-message, or none)");
    }
    if (colon != std::string_view::npos && name != "implicit-return") {
      return Status::InvalidArgument(where + ": only implicit-return takes a parameter");
    }
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return f;
}

std::string FormatFeatures(const FeatureSet& f) {
  if (f.empty()) return "none";
  std::string s;
  const auto add = [&s](const std::string& item) { s += (s.empty() ? "" : ",") + item; };
  if (f.implicit_return_depth > 0) {
    add("implicit-return:" + std::to_string(f.implicit_return_depth));
  }
  if (f.repeated_history) add("repeated-history");
  if (f.repeat_branch) add("repeat-branch");
  if (f.sequential_jump) add("sequential-jump");
  if (f.full_address) add("full-address");
  if (f.config_message) add("config-message");
  return s;
}

}  // namespace ctte::oracle
