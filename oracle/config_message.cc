// Configuration message bytes and parsing (docs/encoder-behaviour.md section 11.9).
#include "oracle/config_message.h"


namespace ctte::oracle {
namespace {

constexpr uint8_t kMseoNext = 0, kMseoEndField = 1, kMseoEndMessage = 3;

void AppendVar(uint64_t v, bool last, std::vector<uint8_t>* out) {
  do {
    const uint8_t mdo = static_cast<uint8_t>(v & 63);
    v >>= 6;
    const uint8_t mseo = v != 0 ? kMseoNext : last ? kMseoEndMessage : kMseoEndField;
    out->push_back(static_cast<uint8_t>(mdo << 2 | mseo));
  } while (v != 0);
}

// Parses the message bytes [b, e); "" on success.
std::string Parse(std::span<const uint8_t> bytes, uint64_t b, uint64_t e, StreamConfig* c) {
  if (e - b < 5) return "shorter than 5 bytes";
  if ((bytes[b] & 3) != kMseoNext || (bytes[b + 1] & 3) != kMseoNext) {
    return "TCODE and VERSION must fill the first two bytes";
  }
  c->version = bytes[b + 1] >> 2;
  if (c->version != kConfigVersion) return "VERSION " + std::to_string(c->version) + ", not 1";
  uint64_t* fields[3] = {&c->compiled, &c->enabled, &c->depth};
  uint64_t i = b + 2;
  for (int f = 0; f < 3; ++f) {
    uint64_t v = 0;
    int shift = 0;
    while (true) {
      if (i >= e) return "ends inside its variable fields";
      if (shift >= 64) return "a field longer than 64 bits";
      v |= static_cast<uint64_t>(bytes[i] >> 2) << shift;
      shift += 6;
      const uint8_t mseo = bytes[i++] & 3;
      if (mseo == kMseoNext) continue;
      if ((mseo == kMseoEndMessage) != (f == 2)) return "not three variable fields";
      break;
    }
    *fields[f] = v;
  }
  if (c->depth > kMaxReturnStackDepth) return "DEPTH " + std::to_string(c->depth) + " > 32";
  if (((c->enabled & kFeatureBitImplicitReturn) != 0) != (c->depth != 0)) {
    return "DEPTH must be non-zero exactly when implicit return is enabled";
  }
  c->features.implicit_return_depth = static_cast<uint32_t>(c->depth);
  c->features.repeated_history = (c->enabled & kFeatureBitRepeatedHistory) != 0;
  c->features.repeat_branch = (c->enabled & kFeatureBitRepeatBranch) != 0;
  c->features.sequential_jump = (c->enabled & kFeatureBitSequentialJump) != 0;
  c->features.full_address = (c->enabled & kFeatureBitFullAddress) != 0;
  c->features.config_message = (c->enabled & kFeatureBitConfigMessage) != 0;
  return "";
}

}  // namespace

uint32_t FeatureBits(const FeatureSet& f) {
  return (f.implicit_return_depth > 0 ? kFeatureBitImplicitReturn : 0) |
         (f.repeated_history ? kFeatureBitRepeatedHistory : 0) |
         (f.repeat_branch ? kFeatureBitRepeatBranch : 0) |
         (f.sequential_jump ? kFeatureBitSequentialJump : 0) |
         (f.full_address ? kFeatureBitFullAddress : 0) |
         (f.config_message ? kFeatureBitConfigMessage : 0);
}

void AppendConfigMessage(uint64_t compiled, const FeatureSet& enabled, std::vector<uint8_t>* out) {
  out->push_back(static_cast<uint8_t>(kTcodeConfig << 2 | kMseoNext));
  out->push_back(static_cast<uint8_t>(kConfigVersion << 2 | kMseoNext));
  AppendVar(compiled, false, out);
  AppendVar(FeatureBits(enabled), false, out);
  AppendVar(enabled.implicit_return_depth, true, out);
}

Result<std::vector<StreamConfig>> FindConfigMessages(std::span<const uint8_t> bytes) {
  std::vector<StreamConfig> found;
  uint64_t i = 0;
  while (i < bytes.size()) {
    if (bytes[i] == 0xFF) {  // idle
      ++i;
      continue;
    }
    const uint64_t start = i;
    while (i < bytes.size() && (bytes[i] & 3) != kMseoEndMessage) ++i;
    if (i < bytes.size()) ++i;
    if ((bytes[start] >> 2) != kTcodeConfig) continue;
    StreamConfig c;
    c.offset = start;
    const std::string why = Parse(bytes, start, i, &c);
    if (!why.empty()) {
      return Status::InvalidArgument("configuration message at byte offset " + std::to_string(start) + ": " +
                                     why);
    }
    found.push_back(c);
  }
  return found;
}

Result<FeatureChoice> ChooseFeatures(std::span<const uint8_t> bytes, const FeatureSet* given) {
  Result<std::vector<StreamConfig>> configs = FindConfigMessages(bytes);
  if (!configs.ok()) return configs.status();
  FeatureChoice c;
  c.configs = std::move(*configs);
  if (c.configs.empty()) {
    if (given != nullptr) c.features = *given;
    return c;
  }
  c.features = c.configs.front().features;
  if (given == nullptr) return c;
  for (const StreamConfig& s : c.configs) {
    if (s.features == *given) continue;
    c.mismatch = "configuration message at byte offset " + std::to_string(s.offset) + " says " +
                 FormatFeatures(s.features) + ", --features says " + FormatFeatures(*given) +
                 ": using the stream's";
    break;
  }
  return c;
}

std::string MissingFeatures(const FeatureSet& f, uint32_t caps) {
  FeatureSet missing;
  const uint32_t bits = FeatureBits(f) & ~caps;
  missing.repeated_history = (bits & kFeatureBitRepeatedHistory) != 0;
  missing.repeat_branch = (bits & kFeatureBitRepeatBranch) != 0;
  missing.sequential_jump = (bits & kFeatureBitSequentialJump) != 0;
  missing.full_address = (bits & kFeatureBitFullAddress) != 0;
  missing.config_message = (bits & kFeatureBitConfigMessage) != 0;
  return missing.empty() ? "" : FormatFeatures(missing);
}

bool IsConfigMessage(std::span<const uint8_t> bytes, uint64_t offset, uint64_t size) {
  if (offset + size > bytes.size() || size == 0 || (bytes[offset] >> 2) != kTcodeConfig) {
    return false;
  }
  StreamConfig c;
  return Parse(bytes, offset, offset + size, &c).empty();
}

}  // namespace ctte::oracle
