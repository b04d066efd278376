// Vertex Block Descent (Chen, Macklin, Hirota, Müller, SIGGRAPH 2024; seed 004's issue): backward
// Euler's incremental potential
//   G(x) = 1/(2h^2) |x - y|_M^2 + W(x) + damping - external work,   y = x_n + h v_n + h^2 g,
// minimized by block coordinate descent: each vertex in turn takes one 3x3 Newton step on G with
// the others held, vertices of one colour (no two in a tetrahedron) in parallel, a fixed number of
// sweeps per step. Converged, it is implicit Euler's answer (tested against the Newton integrator);
// at a few sweeps it trades that accuracy for speed, and every sweep costs a pass over the
// tetrahedra without assembling or factorizing a matrix.
//
// - Energies: the force model's per-element form (ForceModel::element_form): stvk-tl,
//   corotational, neo-hookean, mooney-rivlin, hybrid, snh, snh-smith, cnh, with or without the
//   volumetric penalty.
//   Edge-based StVK, spring networks, nodal pressure and viscous materials have none and are
//   refused by name (check_vbd_model).
// - Damping: Rayleigh alpha M v and beta K_n v with K at the step's start, as the Newton
//   integrator lags it, so both solve the same equations.
// - External forces: gravity (in y), anchors and every obstacle as penalty forces of seed 000
//   eq. 33 at the vertex's own iterate (constraint obstacles use their penalty parameters: a
//   solver without a factor has no compliance to solve constraints with); surface loads at the
//   step's start (a follower load lags one step).
// - Initial guess: VBD's adaptive one, x_n + h v_n + h^2 a~ with a~ the part of the last step's
//   acceleration along gravity, clamped to [0, |g|] (the previous state is kept in
//   SimulationState::history, which BDF reads as well).
// - Chebyshev acceleration (Wang 2015) with spectral radius estimate rho (0: off).
// - Determinism: each colour's vertices read only other colours' positions, so a sweep is the
//   same sequential Gauss-Seidel sweep in colour order for any thread count (bit-identical).
#pragma once

#include "engine/sim/integrator.h"
#include "engine/sim/stages/incremental_potential.h"
#include "engine/sim/stages/step_forces.h"

namespace softbody {

// Throws std::invalid_argument naming what the model has that VBD cannot use.
void check_vbd_model(const SimulationModel& model);

class VertexBlockDescent final : public Integrator {
 public:
  explicit VertexBlockDescent(std::shared_ptr<const SimulationModel> model);
  StepStats step(SimulationState& state, const StepInputs& inputs = {}) override;

 private:
  bool attempt(SimulationState& state, double dt, StepStats& stats);
  // One vertex's Newton step on G with its neighbours held, guarded by a backtracking search on
  // the vertex's share of G: moves x_[i].
  void vertex_update(size_t i, double h, double t_next, double& gradient_squared);
  // The vertex's share of G at x_[i] (its tetrahedra, inertia, damping, loads, penalty
  // potentials; its tetrahedra only with `elements`), beta_neighbours = sum_j K_n,ij (x_j - x_n,j)
  // of its neighbours.
  double local_energy(size_t i, double h, const Vec3& beta_neighbours, bool elements);

  // From the model, once: tetrahedron corners at each vertex (4 t + local index) and the
  // vertices grouped by colour.
  std::vector<Index> corner_offsets_, corners_;
  std::vector<Index> color_offsets_, color_vertices_;

  // Per step.
  StepLoads loads_;
  IncrementalPotential potential_;  // the step's prediction, loads, K_n and posed obstacles
  Vec3Array x_;
  Vec3Array x_previous_, x_before_previous_;  // Chebyshev's iterates
};

}  // namespace softbody
