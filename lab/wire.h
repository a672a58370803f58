// JSON forms of the Board types for the board protocol (docs/board-protocol.md). The only
// place the protocol's field names live. Decoding errors name the JSON path ("plan.sink.kind").
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <string>

#include "base/status.h"
#include "lab/board.h"

namespace ctte::lab::wire {

using Json = nlohmann::json;

Json ToJson(const BoardIdentity& v);
Json ToJson(const DeployReceipt& v);
Json ToJson(const RunPlan& v);
Json ToJson(const Counters& v);  ///< the encoder's counter registers, by name
Json ToJson(const Capture& v);  ///< everything but the bytes (they travel as the payload)
Json StatusToJson(const Status& s);

Status FromJson(const Json& j, const std::string& path, BoardIdentity* out);
Status FromJson(const Json& j, const std::string& path, DeployReceipt* out);
Status FromJson(const Json& j, const std::string& path, RunPlan* out);
Status FromJson(const Json& j, const std::string& path, Capture* out);
/// An "error" object back to a Status (unknown codes become Internal).
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

std::string HexU64(uint64_t v);  ///< "0x0123456789abcdef"
Result<uint64_t> ParseHexU64(const std::string& s, const std::string& path);

}  // namespace ctte::lab::wire
