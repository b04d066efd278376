// Repeated timing of a callable with robust statistics: shared machines are noisy, so benchmarks
// report medians (and p90) of many runs rather than means.
#pragma once

#include <functional>
#include <vector>

namespace softbody::bench {

struct TimingStats {
  int runs = 0;
  double median_s = 0;
  double p10_s = 0;
  double p90_s = 0;
};

// Runs `body` once to warm up, then until `min_seconds` have passed and at least `min_runs` runs.
TimingStats time_repeatedly(const std::function<void()>& body, double min_seconds, int min_runs);

}  // namespace softbody::bench
