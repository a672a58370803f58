// One case of the hostile-input suite (see hostile.h), run and judged: in its own folder and
// process group, as HOME and TMPDIR, with an address-space limit, a timeout and an output cap.
#pragma once

#include <string>

#include "tests/hostile/hostile.h"

namespace ctte::hostile {

struct Outcome {
  bool pass = false;
  std::string why;      // the failure, or "exit N" for a pass
  std::string message;  // the first line of stderr (or stdout)
  double seconds = 0;
};

/// Runs `c` in `dir` and judges its exit, its message (the case's locators) and its
/// post-conditions; `default_timeout_s` applies when the case gives none. The victims outside
/// the folder are the caller's to compare (snapshot.h).
Outcome RunCase(const Case& c, const std::string& dir, int default_timeout_s);

}  // namespace ctte::hostile
