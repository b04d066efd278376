// Seed 000's linearized backward Euler (algU) with the nonlinearity correction (algUNC): one
// linear solve per step, with Rayleigh damping and the external forces' Jacobians. The project's
// first integrator; a step is the pipeline
//   forces -> step system -> velocity solve -> positions -> correction -> acceptance
// of engine/sim/stages/, under step_with_rollback.
#pragma once

#include "engine/sim/integrator.h"
#include "engine/sim/solver_cache.h"
#include "engine/sim/stages/contact_stage.h"
#include "engine/sim/stages/step_forces.h"

namespace softbody {

class LinearizedBackwardEuler final : public Integrator {
 public:
  explicit LinearizedBackwardEuler(std::shared_ptr<const SimulationModel> model);
  StepStats step(SimulationState& state, const StepInputs& inputs = {}) override;
  const EdgeBlockMatrix* system_matrix() const override { return &system_; }
  const Eigen::VectorXd* system_rhs() const override { return &rhs_; }
  const ContactResult* contact_result() const override { return &contact_.last(); }

 private:
  bool attempt(SimulationState& state, double dt, bool correction, StepStats& stats);

  // Per step: the loads and solver options in force.
  StepLoads loads_;
  SolverOptions solver_options_;
  // Scratch, reused between steps for its memory only.
  StepInternalForces internal_;
  ForceOutput forces_, forces_next_;
  ExternalForceOutput external_;
  EdgeBlockMatrix system_;
  Eigen::VectorXd rhs_, velocity_;
  Vec3Array p_next_, v_next_;
  SolverCache solver_cache_;  // the numeric factor, made again from state.solver when needed
  ContactStage contact_;      // constraint obstacles, after the free motion
};

}  // namespace softbody
