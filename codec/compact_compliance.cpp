#include "codec/compact_compliance.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace softbody::codec {

std::vector<float> encode_compliance_upper(const std::vector<double>& w, int rows) {
  const auto n = static_cast<std::size_t>(std::max(rows, 0));
  std::vector<float> upper;
  if (w.size() != n * n) return upper;
  // u: float32's unit round-off (round to nearest).
  constexpr double u = std::numeric_limits<float>::epsilon() / 2;
  double largest_row_sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double sum = 0;
    for (std::size_t j = 0; j < n; ++j) sum += std::abs(w[i * n + j]);
    largest_row_sum = std::max(largest_row_sum, sum);
  }
  const double delta = 2 * u * largest_row_sum;
  upper.reserve(n * (n + 1) / 2);
  for (std::size_t i = 0; i < n; ++i) {
    upper.push_back(static_cast<float>(w[i * n + i] + delta));
    for (std::size_t j = i + 1; j < n; ++j) upper.push_back(static_cast<float>(w[i * n + j]));
  }
  return upper;
}

bool decode_compliance_upper(const float* upper, std::size_t size, int rows,
                             std::vector<double>& w) {
  w.clear();
  const auto n = static_cast<std::size_t>(std::max(rows, 0));
  if (size != n * (n + 1) / 2) return false;
  if (!std::all_of(upper, upper + size, [](float x) { return std::isfinite(x); })) return false;
  w.assign(n * n, 0.0);
  std::size_t k = 0;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i; j < n; ++j) {
      const double value = upper[k++];
      w[i * n + j] = value;
      w[j * n + i] = value;
    }
  return true;
}

}  // namespace softbody::codec
