// Backward differentiation formulas of order 1 (backward Euler: "implicit-euler"), 2 and 3 ("bdf2",
// "bdf3") on the nonlinear equations, solved by inexact simplified Newton (seed 001 §4.3). In
// velocity form BDF-k's step is backward Euler's (engine/sim/stages/backward_euler_residual.h)
// from the combined start p^ = sum_j a_j p_{n-j}, v^ = sum_j a_j v_{n-j} with the step beta h, so
// one Newton serves all three. The previous states come from SimulationState::history; a step with
// no valid history (the first, after a new dt, a retry with substeps, another integrator) runs at
// the highest order it has history for, starting at 1; BDF(3) steps at order 2 for a while when
// it sees a mode it amplifies (engine/sim/stages/bdf_stability.h). Newton: an extrapolated
// predictor v = v_k; each iteration solves J dv = -G to the forcing term eta with the shared
// StepSolver (whose reused factor serves all iterations), then a line search. G is the gradient of
// the step's incremental potential Psi (backward_euler_residual.h), so the line search looks for
// Psi's minimum along dv (minimizing_line_search); with a follower load, which has no potential, it
// backtracks on |G|^2 (Armijo). The Jacobian (K at the current iterate) is re-evaluated when it no
// longer serves: after 4 iterations on the same Jacobian with a contraction Theta = |s_k| /
// |s_{k-1}| >= 1e-3 (the thesis's rule), when Theta >= 0.2, when the line search had to shorten the
// step, or when it fails on a stale one. The StepSolver decides on its own when the matrix it is
// handed has drifted enough to refactor; this class decides only when to hand it a new matrix.
//
// Definiteness: Newton asks the StepSolver for directions (SolverOptions::newton_direction): CG
// on J itself, preconditioned by a factor of a definite matrix near it (reused across iterations
// and steps, shifted where J is indefinite) and stopped at negative curvature. Such a direction
// lowers Psi, and because the answer is the root of G, not of a modified matrix, the fix changes
// the iterations, never the converged step. A step that does not converge in max_iterations falls
// back to the linearized step with correction and says so (StepStats::newton_fallback); no step
// is rejected for Newton's sake. A tolerance below what round-off lets the residual reach (a
// reference's 1e-10 against stiff anchors) ends where a direction no longer moves any position
// beyond round-off (StepStats::newton_round_off), not in a fallback. Either way a step whose
// contacts held records its free motion (SimulationState::free_motion), the next step's predictor
// where that is nearer the root.
#pragma once

#include "engine/sim/integrator.h"
#include "engine/sim/solver_cache.h"
#include "engine/sim/stages/backward_euler_residual.h"
#include "engine/sim/stages/contact_stage.h"
#include "engine/sim/stages/line_search.h"
#include "engine/sim/stages/step_forces.h"

namespace softbody {

class BdfNewton final : public Integrator {
 public:
  // `order`: 1 (backward Euler), 2 or 3.
  BdfNewton(std::shared_ptr<const SimulationModel> model, int order);
  StepStats step(SimulationState& state, const StepInputs& inputs = {}) override;
  const EdgeBlockMatrix* system_matrix() const override { return &jacobian_; }
  const Eigen::VectorXd* system_rhs() const override { return &rhs_; }
  const ContactResult* contact_result() const override { return &contact_.last(); }

 private:
  bool attempt(SimulationState& state, double dt, bool correction, StepStats& stats);
  // Newton on G(v) = 0 from the predictor; true when converged (v_ then holds the answer).
  bool newton(const SimulationState& state, double dt, StepStats& stats);
  // The linearized step with correction from the start, its forces already evaluated.
  bool linearized_fallback(SimulationState& state, double h, StepStats& stats);
  // The highest order the state's history allows for a step of dt (at most order_).
  int usable_order(const SimulationState& state, double dt) const;
  // start_ (p^, v^) from the state and its history.
  void form_start(const SimulationState& state, int order);
  // Accepts p_next_, v_next_ into the state: memory and history move with it.
  bool accept(SimulationState& state, StepStats& stats);
  // accept, and records `free_v` (the step's velocity before contact) as the next step's
  // predictor where the contacts held on the features of `held_before`, else clears it (a copy
  // only where they held).
  bool accept_with_free_motion(SimulationState& state,
                               const std::vector<SimulationState::ContactMemory>& held_before,
                               const Vec3Array& free_v, StepStats& stats);
  // p_trial_ = p_k + dt v and what `what` asks of the internal forces there (forces_), with the
  // external forces (their Jacobians when K is asked) into external_.
  void evaluate_loads_at(const SimulationState& state, double dt, const Vec3Array& v,
                         unsigned what);
  // Forces (and with `stiffness` K) and external forces at p_k + dt v, and G there into g_.
  void evaluate_at(const SimulationState& state, double dt, const Vec3Array& v, bool stiffness);
  // Only what the step matrix needs at p_k + dt v (K, the external forces' Jacobians), into
  // forces_.K and external_: contact's fresh compliance at the free motion's end, where the
  // forces and G are Newton's last and nothing reads them again.
  void evaluate_stiffness_at(const SimulationState& state, double dt, const Vec3Array& v);
  // Along dv_ from v_: to Psi's minimum (`energy`), or Armijo's backtracking on |G|^2 / 2; leaves
  // G (and Psi) at the accepted point, v_ unchanged (trial_v_ holds it).
  LineSearchResult line_search(const SimulationState& state, double dt, bool energy);
  bool solve(const EdgeBlockMatrix& a, const Eigen::VectorXd& b, const Vec3Array& warm,
             const SolverOptions& options, Eigen::VectorXd& x, StepStats& stats);

  const int order_;
  // The forces of a strain of 1e-6 over the body (E L^2 1e-6, L the rest diagonal): the smallest
  // that count in the convergence test (see newton()).
  double negligible_force_ = 0;
  // BDF(3)'s watch for amplified modes ignores third differences below this (see bdf_stability.h).
  double difference_floor_ = 0;
  int step_order_ = 1;  // the order of the step being taken
  StepLoads loads_;
  SolverOptions solver_options_;           // Newton's linear solves: tolerance eta
  SolverOptions fallback_solver_options_;  // the linearized fallback's
  double newton_tolerance_ = 0;
  bool energy_merit_ = false;  // the line search measures Psi, not |G|^2
  StepPotential psi_;          // Psi at the last evaluate_at (with energy_merit_)
  double t_next_ = 0, step_dt_ = 0;
  SimulationState start_;  // p^, v^ of the attempt (only p and v are used)
  // Newton's predictor: the state's recorded free motion when it is valid for this step, else
  // null (then v^).
  const Vec3Array* predictor_ = nullptr;
  // Scratch.
  StepInternalForces internal_;
  ForceOutput forces_start_, forces_;  // at p_k; at the current iterate
  ExternalForceOutput external_start_, external_;
  EdgeBlockMatrix system_, jacobian_;  // A at p_k (the fallback's); J in use
  Eigen::VectorXd rhs_, g_, dv_flat_, solution_;
  Vec3Array v_, trial_v_, p_trial_, p_next_, v_next_;
  ForceOutput forces_next_;
  SolverCache solver_cache_;  // the numeric factor, made again from state.solver when needed
  ContactStage contact_;      // constraint obstacles, after the free motion
};

}  // namespace softbody
