#include "bench/timing.h"

#include "engine/parallel/statistics.h"

#include <algorithm>
#include <chrono>

namespace softbody::bench {

TimingStats time_repeatedly(const std::function<void()>& body, double min_seconds, int min_runs) {
  using clock = std::chrono::steady_clock;
  body();  // warm caches and first-touch allocations
  std::vector<double> samples;
  const auto start = clock::now();
  while (static_cast<int>(samples.size()) < min_runs ||
         std::chrono::duration<double>(clock::now() - start).count() < min_seconds) {
    const auto t0 = clock::now();
    body();
    samples.push_back(std::chrono::duration<double>(clock::now() - t0).count());
  }
  return {static_cast<int>(samples.size()), percentile(samples, 0.5), percentile(samples, 0.1),
          percentile(samples, 0.9)};
}

}  // namespace softbody::bench
