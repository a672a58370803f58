// JSON forms of the Board types for the board protocol (docs/board-protocol.md). The only
// place the protocol's field names live. Decoding errors name the JSON path ("plan.sink.kind").
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <string>

#include "base/status.h"
#include "base/text.h"
#include "lab/board.h"

namespace ctte::lab::wire {

using Json = nlohmann::json;

Json ToJson(const BoardIdentity& v);
Json ToJson(const DeployReceipt& v);
Json ToJson(const RunPlan& v);
Json ToJson(const Counters& v);  ///< the encoder's counter registers, by name
Json ToJson(const Capture& v);  ///< everything but the bytes (they travel as the payload)
/// The protocol's error object: {"code", "kind", "message"} (kind: FailureKindName).
Json StatusToJson(const Status& s);

Status FromJson(const Json& j, const std::string& path, BoardIdentity* out);
Status FromJson(const Json& j, const std::string& path, DeployReceipt* out);
Status FromJson(const Json& j, const std::string& path, RunPlan* out);
Status FromJson(const Json& j, const std::string& path, Capture* out);
/// An "error" object back to a Status carrying its kind (unknown codes become Internal; a
/// missing or unknown kind is kOther).
Status StatusFromJson(const Json& j);

/// Field readers that report "<path>.<key>: missing" / "...: expected an unsigned integer".
Status GetU64(const Json& j, const std::string& path, const char* key, uint64_t* out,
              bool required = true);
Status GetU32(const Json& j, const std::string& path, const char* key, uint32_t* out,
              bool required = true);
Status GetStr(const Json& j, const std::string& path, const char* key, std::string* out,
              bool required = true);
Status GetBool(const Json& j, const std::string& path, const char* key, bool* out,
               bool required = true);

/// Use ctte::Hex64 / ctte::ParseHex64 (base/text.h); these two remain for
/// lab/image_manifest.cc until it switches, then go.
inline std::string HexU64(uint64_t v) { return Hex64(v); }
inline Result<uint64_t> ParseHexU64(const std::string& s, const std::string& path) {
  return ParseHex64(s, path);
}

}  // namespace ctte::lab::wire
