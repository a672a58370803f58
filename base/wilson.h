// The Wilson score interval of a proportion (used by triage's board legs and history --pairs;
// docs/triage.md): k successes in n trials at normal quantile z (1.96: 95 %).
#pragma once

#include <cstdint>
#include <utility>

namespace ctte {

/// [lo, hi] of the Wilson score interval; [0, 1] when n == 0.
std::pair<double, double> WilsonBounds(uint64_t k, uint64_t n, double z = 1.96);

}  // namespace ctte
