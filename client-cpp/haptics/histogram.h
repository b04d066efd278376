// A fixed-memory histogram with 1 % relative resolution for latency-like values (seconds): record()
// allocates nothing, so the haptic loop can call it every tick for hours.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

namespace softbody::client {

class Histogram {
 public:
  // Values below `smallest` land in the first bucket, above `largest` in the last.
  explicit Histogram(double smallest = 1e-7, double largest = 1e3, double resolution = 0.01);

  void record(double value);
  void merge(const Histogram& other);  // same bucket layout
  long count() const { return count_; }
  double max() const { return max_; }
  double mean() const { return count_ ? sum_ / static_cast<double>(count_) : 0; }
  // The q-quantile (0..1), within the resolution; 0 when empty.
  double percentile(double q) const;

  // {"count", "p50", "p90", "p99", "p999", "max", "mean"} with values multiplied by `scale`
  // (e.g. 1e3 for milliseconds).
  nlohmann::json summary(double scale = 1) const;

 private:
  std::size_t bucket(double value) const;
  double value_of(std::size_t bucket) const;

  double smallest_, log_step_;
  std::vector<std::uint64_t> buckets_;
  long count_ = 0;
  double sum_ = 0, max_ = 0;
};

}  // namespace softbody::client
