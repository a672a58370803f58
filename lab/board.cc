// Board helpers: clock domain names. (Failure kinds: lab/failure.h.)
#include "lab/board.h"

namespace ctte::lab {

const char* ClockDomainName(ClockDomain d) {
  return d == ClockDomain::kFabric ? "fabric" : "sink";
}

Result<ClockDomain> ParseClockDomain(const std::string& name) {
  if (name == "fabric") return ClockDomain::kFabric;
  if (name == "sink") return ClockDomain::kSink;
  return Status::InvalidArgument("unknown clock domain '" + name + "' (fabric|sink)");
}

}  // namespace ctte::lab
