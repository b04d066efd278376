// Quasi-Newton (Liu, Bouaziz, Kavan 2017; seed 004's issue): the step's incremental potential G
// minimized by L-BFGS whose initial Hessian is projective dynamics' constant matrix A
// (stages/projective_matrix.h, factored once), with a backtracking (Armijo) line search on G.
// Plain projective dynamics handles projective energies; this handles every law the potential
// supports (StVK, corotational, Neo-Hooke, SNH, CNH, ...) and, with its line search, never raises
// G. Each iteration: the two-loop recursion over the last kHistory pairs (s, y), one solve with
// A (three right-hand sides), and G with its gradient at each trial point.
#pragma once

#include <deque>

#include "engine/sim/potential_minimizer.h"

namespace softbody {

class QuasiNewton final : public PotentialMinimizer {
 public:
  // The L-BFGS window: Liu et al. use 5; more changes little at a few iterations per step.
  static constexpr int kHistory = 5;

  explicit QuasiNewton(std::shared_ptr<const SimulationModel> model)
      : PotentialMinimizer(std::move(model), "quasi-newton") {}

 private:
  void minimize(Vec3Array& x, StepStats& stats) override;
  // d = -H g by the two-loop recursion with H_0 = A^-1.
  void direction(const Vec3Array& gradient, Vec3Array& d);

  struct Pair {
    Vec3Array s, y;
    double rho;  // 1 / (y.s)
  };
  std::deque<Pair> history_;  // oldest first; within one step only
};

}  // namespace softbody
