// The integrators that take backward Euler's step as the minimization of its incremental
// potential (stages/incremental_potential.h) with a constant matrix (stages/projective_matrix.h),
// at a fixed iteration count (seed 004's issue): `projective` (projective dynamics' local/global
// iteration) and `quasi-newton` (L-BFGS with that matrix as the initial Hessian). This base does
// what a step of both is made of: alleviation, the potential and the matrix for the step, VBD's
// adaptive initial guess, the update and its history; they differ only in `minimize`.
//
// Converged, both are the implicit-Euler step on the same forces (tested against the Newton
// integrator). Viscous materials have no potential and are refused by name; constraint obstacles
// act as penalties.
#pragma once

#include "engine/sim/integrator.h"
#include "engine/sim/stages/incremental_potential.h"
#include "engine/sim/stages/projective_matrix.h"

namespace softbody {

// Throws std::invalid_argument naming what `integrator` cannot use in the model.
void check_potential_model(const SimulationModel& model, const char* integrator);

class PotentialMinimizer : public Integrator {
 public:
  StepStats step(SimulationState& state, const StepInputs& inputs = {}) override;

 protected:
  PotentialMinimizer(std::shared_ptr<const SimulationModel> model, const char* name);
  // Both line searches: a step is halved at most this often (A's curvature can be far below the
  // law's: a clamped Neo-Hooke element compressed past J0, a stiff contact met during the
  // iterations; 10 halvings were too few), and rises of G below this fraction of it are
  // round-off.
  static constexpr int kMaxHalvings = 30;
  static constexpr double kEnergyRoundOff = 1e-12;
  // Moves x towards the minimizer of potential_ in model options.iterations iterations; fills
  // stats.iterations, residual (|grad G| at the last iterate evaluated over that at the first)
  // and converged (finite).
  virtual void minimize(Vec3Array& x, StepStats& stats) = 0;
  // stats.residual and converged from the first and last gradients and the last G.
  static void finish_statistics(double first_gradient, const Vec3Array& gradient, double energy,
                                StepStats& stats);

  IncrementalPotential potential_;
  ProjectiveMatrix matrix_;

 private:
  bool attempt(SimulationState& state, double h, StepStats& stats);
  const char* name_;
  StepLoads loads_;
  // W(p) for the energy guard: from the potential's last iterate, the last accepted state's
  // (cached: the next step starts there), or evaluated.
  double elastic_energy(const Vec3Array& p);
  std::unique_ptr<ForceWorkspace> workspace_;
  Vec3Array accepted_p_;
  double accepted_elastic_ = 0;
};

// Sums over all vertices that round the same for any thread count.
double dot(const Vec3Array& a, const Vec3Array& b);

}  // namespace softbody
