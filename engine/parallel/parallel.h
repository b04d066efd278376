// Thin OpenMP helpers. Every parallel loop in the engine writes each output element from exactly
// one iteration (gather form) or runs over independent colour classes, so results are bit-identical
// for any thread count.
#pragma once

#include <atomic>
#include <cstddef>
#include <vector>

namespace softbody {

// Number of threads parallel loops use; set_num_threads(0) restores the OpenMP default.
void set_num_threads(int n);
int num_threads();

// Loops shorter than this run on the calling thread: waking the team (tens of microseconds when
// its threads sleep between loops, OMP_WAIT_POLICY=passive) costs more than a few thousand
// iterations' work, and a step runs hundreds of such loops (a CG iteration's matrix product, dot
// products, preconditioner). Measured (bench/RESULTS.md, "Short loops on one thread"): two threads
// took the 554-vertex knight's held grasp step from 1.2-1.4 ms (one thread) to 2.2-2.3 ms with
// every loop parallel, 1.7-1.8 ms from 2,048 iterations, 1.17-1.20 ms from 4,096; the
// 5,433-vertex bunny's vertex loops stay parallel (23 ms against 30 on one thread; from 6,000 on
// they would not). The result is the same either way.
constexpr std::ptrdiff_t kDefaultMinParallelLoop = 4096;
namespace detail {
// Process-wide (unlike the thread count, which OpenMP keeps per thread); atomic because a
// server's sessions step on several threads.
inline std::atomic<std::ptrdiff_t> min_parallel_loop{kDefaultMinParallelLoop};
}  // namespace detail
inline std::ptrdiff_t min_parallel_loop() {
  return detail::min_parallel_loop.load(std::memory_order_relaxed);
}
// Tests that compare thread counts lower it (to 1) so that a small mesh's loops run in parallel;
// 0 restores the default.
inline void set_min_parallel_loop(std::ptrdiff_t n) {
  detail::min_parallel_loop.store(n > 0 ? n : kDefaultMinParallelLoop, std::memory_order_relaxed);
}
// Every loop in parallel, however short, while it lives (tests comparing thread counts).
class EveryLoopParallel {
 public:
  EveryLoopParallel() : saved_(min_parallel_loop()) { set_min_parallel_loop(1); }
  ~EveryLoopParallel() { set_min_parallel_loop(saved_); }
  EveryLoopParallel(const EveryLoopParallel&) = delete;
  EveryLoopParallel& operator=(const EveryLoopParallel&) = delete;

 private:
  std::ptrdiff_t saved_;
};

// body(i) for i in [0, n), in parallel from `min_parallel` iterations on.
template <typename Body>
void parallel_for(std::ptrdiff_t n, Body&& body,
                  std::ptrdiff_t min_parallel = min_parallel_loop()) {
#pragma omp parallel for schedule(static) if (n >= min_parallel)
  for (std::ptrdiff_t i = 0; i < n; ++i) body(i);
}

// Colours with fewer members than this run on the calling thread: waking the team costs more
// than they do (the result is the same either way).
constexpr std::ptrdiff_t kMinParallelColor = 256;

// body(k) for every position k of `offsets`' colours (colour c holds [offsets[c],
// offsets[c + 1])), colour by colour, a colour's members in parallel: they must be independent.
// Taking the colours in order makes the sweep the same sequential sweep for any thread count.
template <typename Offset, typename Body>
void for_each_by_color(const std::vector<Offset>& offsets, Body&& body) {
  for (size_t c = 0; c + 1 < offsets.size(); ++c) {
    const auto begin = static_cast<std::ptrdiff_t>(offsets[c]);
    const auto count = static_cast<std::ptrdiff_t>(offsets[c + 1]) - begin;
    parallel_for(
        count, [&](std::ptrdiff_t k) { body(begin + k); }, kMinParallelColor);
  }
}

// Sum of term(i) for i in [0, n) whose rounding does not depend on the thread count: partial sums
// over a fixed number of chunks, added in order.
template <typename Term>
double deterministic_sum(std::ptrdiff_t n, Term&& term) {
  constexpr std::ptrdiff_t kChunks = 64;
  double partial[kChunks] = {};
#pragma omp parallel for schedule(static) if (n >= min_parallel_loop())
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
