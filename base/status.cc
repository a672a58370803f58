#include "base/status.h"

namespace ctte {

const char* Status::CodeName(Code code) {
  switch (code) {
    case Code::kOk: return "OK";
    case Code::kNotFound: return "NotFound";
    case Code::kCorruption: return "Corruption";
    case Code::kIOError: return "IOError";
    case Code::kInvalidArgument: return "InvalidArgument";
    case Code::kTimeout: return "Timeout";
    case Code::kUnavailable: return "Unavailable";
    case Code::kInternal: return "Internal";
  }
  return "Unknown";
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  return std::string(CodeName(code_)) + ": " + msg_;
}

}  // namespace ctte
