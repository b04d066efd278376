// Thin OpenMP helpers. Every parallel loop in the engine writes each output element from exactly
// one iteration (gather form) or runs over independent colour classes, so results are bit-identical
// for any thread count.
#pragma once

#include <cstddef>
#include <vector>

namespace softbody {

// Number of threads parallel loops use; set_num_threads(0) restores the OpenMP default.
void set_num_threads(int n);
int num_threads();

template <typename Body>
void parallel_for(std::ptrdiff_t n, Body&& body) {
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t i = 0; i < n; ++i) body(i);
}

// Sum of term(i) for i in [0, n) whose rounding does not depend on the thread count: partial sums
// over a fixed number of chunks, added in order.
template <typename Term>
double deterministic_sum(std::ptrdiff_t n, Term&& term) {
  constexpr std::ptrdiff_t kChunks = 64;
  double partial[kChunks] = {};
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t c = 0; c < kChunks; ++c) {
    std::ptrdiff_t begin = n * c / kChunks, end = n * (c + 1) / kChunks;
    double s = 0;
    for (std::ptrdiff_t i = begin; i < end; ++i) s += term(i);
    partial[c] = s;
  }
  double total = 0;
  for (double p : partial) total += p;
  return total;
}

}  // namespace softbody
