// JSON input adapter: the one place that turns untrusted JSON text into nlohmann::ordered_json.
//
// Every JSON input (campaign specs, run configs, stored configs, manifests, board-protocol
// headers) goes through ParseJsonText or ParseJsonFile, which are strict where nlohmann is
// lenient and never throw. On top of nlohmann's own grammar checks they reject, each with an
// error naming the source, a JSON path and the byte offset (see docs/inputs-and-outputs.md):
//   - a duplicate key in any object                 "$.axes.mode: duplicate key "mode""
//   - a number outside the double range (1e400)     "$.runs: number 1e400 is out of range"
//   - an integer literal that does not fit 64 bits  "$.seed: integer ... does not fit in 64 bits"
//   - a UTF-8 byte-order mark, invalid UTF-8
//   - nesting deeper than JsonLimits::max_depth, input larger than max_bytes, more than
//     max_values values
// Parsing uses nlohmann's SAX interface; this file only checks and builds the tree.
//
// The typed getters (GetU64, GetI64, GetDouble, GetString, GetBool) range-check one field and
// return "PATH: reason" errors, so that every numeric input is checked where it is read.
// Callers prefix the source ("spec.json: ") as they already do for validation errors.
//
// Thread-safe: no shared state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace ctte {

struct JsonLimits {
  /// Largest accepted input, in bytes (16 MiB).
  size_t max_bytes = size_t{16} << 20;
  /// Deepest accepted nesting of arrays and objects; the top-level value is depth 1.
  size_t max_depth = 64;
  /// Most values (scalars, arrays, objects, counted once each) in one document.
  size_t max_values = size_t{1} << 20;
};

/// Parses one JSON document. `source` names the input in every error ("spec.json",
/// "--config", "runs.config_json of run 42"). Errors are InvalidArgument (Corruption never:
/// the caller knows whether bad text means corruption) and read
///   "SOURCE: PATH: reason at byte N (line L, column C)".
Result<nlohmann::ordered_json> ParseJsonText(std::string_view text, std::string_view source,
                                             const JsonLimits& limits = {});

/// Reads and parses a JSON file. Refuses anything that is not a regular file (a FIFO, a device
/// such as /dev/zero, a directory) before reading a byte, and refuses a file larger than
/// limits.max_bytes without reading it. The source in errors is the path.
Result<nlohmann::ordered_json> ParseJsonFile(const std::string& path,
                                             const JsonLimits& limits = {});

/// "$.axes" + "mode" -> "$.axes.mode"; keys that are not [A-Za-z0-9_-]+ are written
/// ["quoted"], so every path is unambiguous.
std::string JsonPathKey(std::string_view path, std::string_view key);
/// "$.axes.mode" + 2 -> "$.axes.mode[2]".
std::string JsonPathIndex(std::string_view path, size_t index);

// Typed getters. `path` is the JSON path of `obj` (e.g. "$.clocks"); errors name
// "$.clocks.fabric_mhz". A missing key is "PATH.key: missing required field"; callers with an
// optional field test obj.contains(key) first. Only JSON integers are integers: 3.0 and "3"
// are the wrong type.

/// An integer in [min, max].
Result<uint64_t> GetU64(const nlohmann::ordered_json& obj, std::string_view path,
                        std::string_view key, uint64_t min = 0, uint64_t max = UINT64_MAX);
Result<int64_t> GetI64(const nlohmann::ordered_json& obj, std::string_view path,
                       std::string_view key, int64_t min = INT64_MIN, int64_t max = INT64_MAX);
/// A finite number (integer or not) in [min, max].
Result<double> GetDouble(const nlohmann::ordered_json& obj, std::string_view path,
                         std::string_view key, double min, double max);
/// A string of at most max_size bytes.
Result<std::string> GetString(const nlohmann::ordered_json& obj, std::string_view path,
                              std::string_view key, size_t max_size = 4096);
Result<bool> GetBool(const nlohmann::ordered_json& obj, std::string_view path,
                     std::string_view key);

/// The same checks on a value itself (an array element, a top-level value); `path` is its path.
Result<uint64_t> JsonU64(const nlohmann::ordered_json& v, std::string_view path,
                         uint64_t min = 0, uint64_t max = UINT64_MAX);
Result<int64_t> JsonI64(const nlohmann::ordered_json& v, std::string_view path,
                        int64_t min = INT64_MIN, int64_t max = INT64_MAX);
Result<double> JsonDouble(const nlohmann::ordered_json& v, std::string_view path, double min,
                          double max);

/// "string", "integer", "number", "boolean", "null", "array", "object" (for wrong-type errors).
const char* JsonTypeName(const nlohmann::ordered_json& v);

/// Bytes of untrusted text made safe to print in one line of a message: printable ASCII and
/// valid UTF-8 stay, everything else becomes \xNN, and the result is cut at max_bytes with "...".
std::string PrintableText(std::string_view text, size_t max_bytes = 64);

}  // namespace ctte
