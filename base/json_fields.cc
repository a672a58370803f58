// The typed field getters of the JSON input adapter (see json.h): range checks of one value or
// one object member, errors "PATH: reason" (the parser itself is json.cc).
#include <charconv>
#include <cmath>
#include <string>

#include "base/json.h"

namespace ctte {
namespace {

using Json = nlohmann::ordered_json;

std::string FormatDouble(double v) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  if (ec != std::errc()) return "?";
  return std::string(buf, end);
}

std::string WrongType(std::string_view path, const char* expected, const Json& v) {
  return std::string(path) + ": wrong type: expected " + expected + ", got " + JsonTypeName(v);
}

}  // namespace

const char* JsonTypeName(const Json& v) {
  if (v.is_string()) return "string";
  if (v.is_number_integer()) return "integer";
  if (v.is_number()) return "number";
  if (v.is_boolean()) return "boolean";
  if (v.is_null()) return "null";
  if (v.is_array()) return "array";
  if (v.is_object()) return "object";
  return "binary";
}

Result<uint64_t> JsonU64(const Json& v, std::string_view path, uint64_t min, uint64_t max) {
  const std::string range =
      " is out of range (expected " + std::to_string(min) + ".." + std::to_string(max) + ")";
  if (v.is_number_unsigned()) {
    const uint64_t x = v.get<uint64_t>();
    if (x < min || x > max) return Status::InvalidArgument(std::string(path) + ": " +
                                                           std::to_string(x) + range);
    return x;
  }
  if (v.is_number_integer()) {  // a negative integer
    const int64_t x = v.get<int64_t>();
    if (x < 0 || static_cast<uint64_t>(x) < min || static_cast<uint64_t>(x) > max) {
      return Status::InvalidArgument(std::string(path) + ": " + std::to_string(x) + range);
    }
    return static_cast<uint64_t>(x);
  }
  return Status::InvalidArgument(WrongType(path, "integer", v));
}

Result<int64_t> JsonI64(const Json& v, std::string_view path, int64_t min, int64_t max) {
  const std::string range =
      " is out of range (expected " + std::to_string(min) + ".." + std::to_string(max) + ")";
  if (v.is_number_unsigned()) {
    const uint64_t x = v.get<uint64_t>();
    if (x > static_cast<uint64_t>(INT64_MAX) || static_cast<int64_t>(x) < min ||
        static_cast<int64_t>(x) > max) {
      return Status::InvalidArgument(std::string(path) + ": " + std::to_string(x) + range);
    }
    return static_cast<int64_t>(x);
  }
  if (v.is_number_integer()) {
    const int64_t x = v.get<int64_t>();
    if (x < min || x > max) {
      return Status::InvalidArgument(std::string(path) + ": " + std::to_string(x) + range);
    }
    return x;
  }
  return Status::InvalidArgument(WrongType(path, "integer", v));
}

Result<double> JsonDouble(const Json& v, std::string_view path, double min, double max) {
  if (!v.is_number()) return Status::InvalidArgument(WrongType(path, "number", v));
  const double x = v.get<double>();
  if (!std::isfinite(x) || !(x >= min && x <= max)) {
    return Status::InvalidArgument(std::string(path) + ": " + FormatDouble(x) +
                                   " is out of range (expected " + FormatDouble(min) + ".." +
                                   FormatDouble(max) + ")");
  }
  return x;
}

namespace {
// The member `key` of `obj`, or an error naming PATH.key.
Result<const Json*> Member(const Json& obj, std::string_view path, std::string_view key) {
  if (!obj.is_object()) {
    return Status::InvalidArgument(WrongType(path, "object", obj));
  }
  const auto it = obj.find(std::string(key));
  if (it == obj.end()) {
    return Status::InvalidArgument(JsonPathKey(path, key) + ": missing required field");
  }
  return &*it;
}
}  // namespace

Result<uint64_t> GetU64(const Json& obj, std::string_view path, std::string_view key,
                        uint64_t min, uint64_t max) {
  Result<const Json*> m = Member(obj, path, key);
  if (!m.ok()) return m.status();
  return JsonU64(**m, JsonPathKey(path, key), min, max);
}

Result<int64_t> GetI64(const Json& obj, std::string_view path, std::string_view key,
                       int64_t min, int64_t max) {
  Result<const Json*> m = Member(obj, path, key);
  if (!m.ok()) return m.status();
  return JsonI64(**m, JsonPathKey(path, key), min, max);
}

Result<double> GetDouble(const Json& obj, std::string_view path, std::string_view key,
                         double min, double max) {
  Result<const Json*> m = Member(obj, path, key);
  if (!m.ok()) return m.status();
  return JsonDouble(**m, JsonPathKey(path, key), min, max);
}

Result<std::string> GetString(const Json& obj, std::string_view path, std::string_view key,
                              size_t max_size) {
  Result<const Json*> m = Member(obj, path, key);
  if (!m.ok()) return m.status();
  const Json& v = **m;
  const std::string p = JsonPathKey(path, key);
  if (!v.is_string()) return Status::InvalidArgument(WrongType(p, "string", v));
  const auto& s = v.get_ref<const std::string&>();
  if (s.size() > max_size) {
    return Status::InvalidArgument(p + ": string of " + std::to_string(s.size()) +
                                   " bytes, more than " + std::to_string(max_size));
  }
  return s;
}

Result<bool> GetBool(const Json& obj, std::string_view path, std::string_view key) {
  Result<const Json*> m = Member(obj, path, key);
  if (!m.ok()) return m.status();
  const Json& v = **m;
  if (!v.is_boolean()) {
    return Status::InvalidArgument(WrongType(JsonPathKey(path, key), "boolean", v));
  }
  return v.get<bool>();
}

}  // namespace ctte
