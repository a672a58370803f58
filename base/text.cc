// Text helpers (see text.h): strict parsers that never wrap, one hex spelling, UTC stamps.
#include "base/text.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <ctime>

namespace ctte {
namespace {

Status Bad(std::string_view what, std::string_view text, const char* expected) {
  return Status::InvalidArgument(std::string(what) + ": expected " + expected + ", got '" +
                                 std::string(text) + "'");
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string Hex64(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016" PRIx64, v);
  return buf;
}

std::string HexShort(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, v);
  return buf;
}

Result<uint64_t> ParseHex64(std::string_view text, std::string_view what) {
  constexpr const char* kExpected = "0x and 1 to 16 hex digits";
  if (text.size() < 3 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X')) {
    return Bad(what, text, kExpected);
  }
  const std::string_view digits = text.substr(2);
  if (digits.size() > 16) return Bad(what, text, kExpected);
  uint64_t v = 0;
  for (char c : digits) {
    const int d = HexDigit(c);
    if (d < 0) return Bad(what, text, kExpected);
    v = (v << 4) | static_cast<uint64_t>(d);
  }
  return v;
}

Result<uint64_t> ParseDecimal64(std::string_view text, std::string_view what) {
  constexpr const char* kExpected = "a decimal number from 0 to 18446744073709551615";
  if (text.empty() || text.size() > 20) return Bad(what, text, kExpected);
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return Bad(what, text, kExpected);
    const uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return Bad(what, text, kExpected);
    v = v * 10 + d;
  }
  return v;
}

Result<uint64_t> ParseU64Text(std::string_view text, std::string_view what) {
  if (text.size() >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    return ParseHex64(text, what);
  }
  return ParseDecimal64(text, what);
}

std::string NowIsoUtc() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string FormatDuration(double seconds) {
  char buf[48];
  if (!std::isfinite(seconds) || seconds < 0) seconds = 0;
  if (seconds < 60) {
    std::snprintf(buf, sizeof buf, "%.2f s", seconds);
  } else if (seconds < 3600) {
    const auto s = static_cast<uint64_t>(seconds);
    std::snprintf(buf, sizeof buf, "%" PRIu64 " min %02" PRIu64 " s", s / 60, s % 60);
  } else {
    const auto m = static_cast<uint64_t>(seconds / 60);
    std::snprintf(buf, sizeof buf, "%" PRIu64 " h %02" PRIu64 " min", m / 60, m % 60);
  }
  return buf;
}

std::string QuoteForMessage(std::string_view text, size_t max_bytes) {
  const bool cut = text.size() > max_bytes;
  std::string out = "\"";
  for (char ch : cut ? text.substr(0, max_bytes) : text) {
    out += static_cast<unsigned char>(ch) < 0x20 || ch == 0x7F ? '?' : ch;
  }
  out += cut ? "...\"" : "\"";
  if (cut) out += " (" + std::to_string(text.size()) + " bytes)";
  return out;
}

}  // namespace ctte
