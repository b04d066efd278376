// When an iterative solve stops: the relative residual reached the tolerance, the iteration cap,
// or the wall-clock budget (seed 000 §4.1: as many iterations as fit in the step). Shared by the
// Krylov methods and Eisenstat's CG.
#pragma once

#include <chrono>

#include "engine/solvers/solver_options.h"

namespace softbody {

class StopWatch {
 public:
  explicit StopWatch(const SolverOptions& o)
      : options_(o), start_(std::chrono::steady_clock::now()) {}
  bool out_of_time() const {
    return options_.time_budget_s > 0 &&
           std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count() >=
               options_.time_budget_s;
  }

 private:
  const SolverOptions& options_;
  std::chrono::steady_clock::time_point start_;
};

// True (with report.reason set) when no further iteration should run.
inline bool should_stop(SolveReport& report, const SolverOptions& o, const StopWatch& watch) {
  if (report.relative_residual <= o.tolerance) return report.reason = StopReason::kConverged, true;
  if (report.iterations >= o.max_iterations)
    return report.reason = StopReason::kMaxIterations, true;
  if (watch.out_of_time()) return report.reason = StopReason::kTimeBudget, true;
  return false;
}

}  // namespace softbody
