// Board helpers: clock domain names, console text. (Failure kinds: lab/failure.h.)
#include "lab/board.h"

#include <cstdio>

#include "base/text.h"

namespace ctte::lab {

const char* ClockDomainName(ClockDomain d) {
  return d == ClockDomain::kFabric ? "fabric" : "sink";
}

Result<ClockDomain> ParseClockDomain(const std::string& name) {
  if (name == "fabric") return ClockDomain::kFabric;
  if (name == "sink") return ClockDomain::kSink;
  return Status::InvalidArgument("unknown clock domain " + QuoteForMessage(name) + " (fabric|sink)");
}

std::string ConsoleText(const std::string& raw) {
  std::string out;
  const size_t n = raw.size() < kMaxConsoleBytes ? raw.size() : kMaxConsoleBytes;
  for (size_t i = 0; i < n; ++i) {
    const unsigned char ch = static_cast<unsigned char>(raw[i]);
    if ((ch >= 0x20 && ch < 0x7f && ch != '\\') || ch == '\n' || ch == '\t') {
      out.push_back(static_cast<char>(ch));
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", ch);
      out += buf;
    }
  }
  if (raw.size() > n) out += "...[" + std::to_string(raw.size() - n) + " more bytes]";
  return out;
}

}  // namespace ctte::lab
