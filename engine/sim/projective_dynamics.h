// Projective dynamics (Bouaziz et al. 2014; seed 004's issue): the step's incremental potential G
// minimized by local/global iterations with a constant, once-factored matrix A
// (stages/projective_matrix.h), optionally Chebyshev-accelerated (Wang 2015):
//   x <- x - A^-1 grad G(x).
// For a projective energy (w/2) |F - P(F)|^2 this is PD's iteration exactly: the local step's
// projections P enter through grad G = A x - (M y / h^2 + sum_e w G_e^T P_e), and the global solve
// is x = A^-1 (M y / h^2 + sum_e w G_e^T P_e). Our laws are not all projective (corotational's
// lambda term, StVK, Neo-Hooke, SNH, CNH): for them the same iteration is A-preconditioned
// gradient descent, PD with the local step's projection P_e = F_e - dPsi/dF / w (Liu et al. 2017
// read PD this way). It keeps every model the potential supports and converges to implicit Euler;
// a step that would raise G (a strongly compressed StVK element, a stiff penalty contact that
// begins during the iterations, which A does not contain) is halved until it does not, and
// restarts the acceleration.
#pragma once

#include "engine/sim/potential_minimizer.h"

namespace softbody {

class ProjectiveDynamics final : public PotentialMinimizer {
 public:
  explicit ProjectiveDynamics(std::shared_ptr<const SimulationModel> model)
      : PotentialMinimizer(std::move(model), "projective") {}

 private:
  void minimize(Vec3Array& x, StepStats& stats) override;
};

}  // namespace softbody
