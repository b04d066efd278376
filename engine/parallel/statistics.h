// Order statistics of measurement samples (timings), shared by the runner and the benchmarks.
#pragma once

#include <algorithm>
#include <vector>

namespace softbody {

// The q-quantile (0 <= q <= 1) by the nearest lower rank; 0 for no samples.
inline double percentile(std::vector<double> samples, double q) {
  if (samples.empty()) return 0;
  std::sort(samples.begin(), samples.end());
  return samples[static_cast<size_t>(q * static_cast<double>(samples.size() - 1))];
}

}  // namespace softbody
