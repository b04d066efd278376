// Backward Euler's step as a minimization (seed 004 eq. 3), for the solvers that minimize it over
// all vertices at once (projective dynamics, quasi-Newton):
//   G(x) = 1/(2h^2) |x - y|_M^2 + alpha/(2h) |x - x_n|_M^2 + W(x)
//          + beta/(2h) (x - x_n)^T K_n (x - x_n) - f_s^T x + penalties,
// y = x_n + h v_n + h^2 g the prediction, K_n the stiffness at the step's start (Rayleigh beta as
// the Newton integrators lag it), f_s the surface loads at the step's start, and the penalty
// potentials of anchors (k/2 |x - target|^2 + c/(2h) |x - x_n - h v_target|^2) and obstacles
// (K_N d^2 / 2; their damping and friction are dissipative: they enter the gradient, as the step's
// forces at velocity (x - x_n)/h, not the value). Its stationary point is the implicit-Euler step
// on the same forces; a solver that stops early gives up the distance to it.
#pragma once

#include "engine/sim/simulation.h"
#include "engine/sim/stages/step_forces.h"

namespace softbody {

class IncrementalPotential {
 public:
  explicit IncrementalPotential(std::shared_ptr<const SimulationModel> model);

  // Sets up the step from `state` over h: the prediction, K_n (with beta), the surface loads, the
  // obstacles posed at the step's end. Constraint obstacles act as penalties (a solver without a
  // step factor has no compliance to solve constraints with).
  void begin_step(const SimulationState& state, const StepLoads& loads, double h);

  // G(x) and, when `gradient` is given, dG/dx (zero at fixed vertices).
  double evaluate(const Vec3Array& x, Vec3Array* gradient);
  // The vertices in penalty contact at x with their obstacles' normal stiffness K_N (summed per
  // vertex, sorted): what the constant matrix may take in for the step.
  std::vector<std::pair<Index, double>> penalty_contacts(const Vec3Array& x) const;
  // W(x) when x is where evaluate() last ran (the solvers' last iterate): true and the energy.
  bool elastic_energy_at(const Vec3Array& x, double& energy) const {
    if (x != evaluated_at_) return false;
    energy = elastic_.energy;
    return true;
  }

  // The prediction y = x_n + h v_n + h^2 g, and the step's start x_n.
  const Vec3Array& prediction() const { return prediction_; }
  const Vec3Array& start() const { return start_; }
  const StepLoads& loads() const { return loads_; }
  // The step's surface loads (at its start), K_n (with beta only), and its obstacles posed at the
  // step's end as penalty with their reference points' positions and velocities there: what a
  // vertex-local solver (VBD) evaluates per vertex.
  const Vec3Array& surface_loads() const { return surface_loads_; }
  const EdgeBlockMatrix& stiffness_start() const { return stiffness_start_; }
  const std::vector<Obstacle>& obstacles() const { return obstacles_; }
  const std::vector<std::pair<Vec3, Vec3>>& obstacle_poses() const { return obstacle_poses_; }
  double h() const { return h_; }

  // The terms of G that belong to vertex i alone at position x (inertia, mass damping, surface
  // loads, anchor and obstacle penalties), and, when `gradient` is given, their gradient added to
  // it. VBD's per-vertex energy is these, its tetrahedra and its Rayleigh beta row.
  double vertex_terms(size_t i, const Vec3& x, Vec3* gradient) const;
  // Indices into loads().anchors of the anchors on vertex i.
  const std::vector<size_t>& anchors_at(size_t i) const { return anchors_at_[i]; }

 private:
  std::shared_ptr<const SimulationModel> model_;
  std::unique_ptr<ForceWorkspace> workspace_;
  ForceOutput elastic_;
  Vec3Array evaluated_at_;  // where elastic_ was last evaluated
  StepLoads loads_;
  std::vector<std::vector<size_t>> anchors_at_;        // per vertex: indices into loads_.anchors
  std::vector<Obstacle> obstacles_;                    // posed at the step's end, as penalty
  std::vector<std::pair<Vec3, Vec3>> obstacle_poses_;  // centre and velocity there
  Vec3Array start_, prediction_, surface_loads_;
  EdgeBlockMatrix stiffness_start_;  // K_n, with beta only
  double h_ = 0, t_next_ = 0;
};

}  // namespace softbody
