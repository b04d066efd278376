#include "client-cpp/haptics/histogram.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace softbody::client {

Histogram::Histogram(double smallest, double largest, double resolution)
    : smallest_(smallest), log_step_(std::log1p(resolution)) {
  const auto n = static_cast<std::size_t>(std::ceil(std::log(largest / smallest) / log_step_)) + 2;
  buckets_.assign(n, 0);
}

std::size_t Histogram::bucket(double value) const {
  if (!(value > smallest_)) return 0;
  const double b = std::floor(std::log(value / smallest_) / log_step_) + 1;
  return std::min(buckets_.size() - 1, static_cast<std::size_t>(b));
}

// The geometric middle of a bucket (the first bucket holds everything below `smallest`).
double Histogram::value_of(std::size_t b) const {
  if (b == 0) return smallest_;
  return smallest_ * std::exp((static_cast<double>(b) - 0.5) * log_step_);
}

void Histogram::record(double value) {
  ++buckets_[bucket(value)];
  ++count_;
  sum_ += value;
  max_ = std::max(max_, value);
}

void Histogram::merge(const Histogram& other) {
  if (other.buckets_.size() != buckets_.size()) throw std::invalid_argument("histogram layouts");
  for (std::size_t i = 0; i < buckets_.size(); ++i) buckets_[i] += other.buckets_[i];
  count_ += other.count_;
  sum_ += other.sum_;
  max_ = std::max(max_, other.max_);
}

double Histogram::percentile(double q) const {
  if (count_ == 0) return 0;
  const auto rank = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(count_)));
  std::uint64_t seen = 0;
  for (std::size_t b = 0; b < buckets_.size(); ++b) {
    seen += buckets_[b];
    if (seen >= std::max<std::uint64_t>(rank, 1)) return std::min(value_of(b), max_);
  }
  return max_;
}

nlohmann::json Histogram::summary(double scale) const {
  if (count_ == 0) return {{"count", 0}};
  return {{"count", count_},
          {"p50", scale * percentile(0.5)},
          {"p90", scale * percentile(0.9)},
          {"p99", scale * percentile(0.99)},
          {"p999", scale * percentile(0.999)},
          {"max", scale * max_},
          {"mean", scale * mean()}};
}

}  // namespace softbody::client
