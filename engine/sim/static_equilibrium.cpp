#include "engine/sim/static_equilibrium.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "engine/sim/stages/step_matrix.h"
#include "engine/solvers/krylov.h"
#include "engine/solvers/sparse_cholesky.h"
#include "engine/solvers/step_solver.h"

namespace softbody {
namespace {

bool is_fixed(const SimulationModel& model, size_t v) {
  return !model.fixed.empty() && model.fixed[v] != 0;
}

// The external load at p for load factor `load`: gravity and the scene's surface loads at the
// end of their curves, both scaled by `load`.
void external_load(const SimulationModel& model, const Vec3Array& p, double load,
                   ExternalForceOutput& external) {
  external.reset(p.size());
  for (size_t v = 0; v < p.size(); ++v) external.h[v] = model.mass[v] * model.gravity;
  add_surface_loads(model.surface_loads, p, std::numeric_limits<double>::max(), external);
  add_surface_load_stiffness(model.surface_loads, *model.topology, p,
                             std::numeric_limits<double>::max(), external);
  for (Vec3& h : external.h) h *= load;
  for (Mat3& k : external.k_h) k *= load;
  for (auto& [e, k] : external.k_h_edges) k *= load;
  for (auto& [e, k] : external.k_h_edges_skew) k *= load;
}

// |f(p) - h(p)| over the free vertices; fills `residual` (zero at fixed vertices).
double free_residual(const SimulationModel& model, const Vec3Array& f, const Vec3Array& h,
                     Eigen::VectorXd& residual) {
  residual.resize(3 * static_cast<Eigen::Index>(f.size()));
  for (size_t v = 0; v < f.size(); ++v) {
    const Vec3 r = is_fixed(model, v) ? Vec3::Zero() : Vec3(f[v] - h[v]);
    residual.segment<3>(3 * static_cast<Eigen::Index>(v)) = r;
  }
  return residual.norm();
}

// W(p) - h . p: the potential energy where the loads are dead (gravity, tractions).
double potential(const Vec3Array& p, double energy, const Vec3Array& h) {
  double work = 0;
  for (size_t v = 0; v < p.size(); ++v) work += h[v].dot(p[v]);
  return energy - work;
}

bool has_follower_load(const SimulationModel& model) {
  for (const SurfaceLoad& load : model.surface_loads)
    if (load.pressure != 0) return true;
  return false;
}

}  // namespace

StaticResult solve_static(const SimulationModel& model, const StaticOptions& options,
                          const std::function<void(int, int)>& progress) {
  // Anchors and obstacles take no part: a body held only by them has no equilibrium here, and its
  // stiffness matrix is singular (rigid motions).
  if (std::none_of(model.fixed.begin(), model.fixed.end(), [](std::uint8_t f) { return f != 0; }))
    throw std::invalid_argument(
        "static equilibrium needs fixed vertices (the scene's `fixed`); anchors and obstacles "
        "take no part in it, so a body held only by them would float");
  const ForceModel& forces = *model.forces;
  auto workspace = forces.make_workspace();
  StaticResult result;
  result.p = model.rest;
  // Convergence is measured against the full load's size on the free vertices.
  ExternalForceOutput external;
  external_load(model, model.rest, 1.0, external);
  double load_norm = 0;
  for (size_t v = 0; v < external.h.size(); ++v)
    if (!is_fixed(model, v)) load_norm += external.h[v].squaredNorm();
  load_norm = std::sqrt(load_norm);
  if (load_norm == 0) load_norm = 1;  // no load: the rest shape is the answer
  // A follower pressure has no potential: then the line search asks the residual to fall.
  const bool conservative = !has_follower_load(model);

  SymmetricCsc matrix(*model.topology, model.fixed);
  SparseCholesky factor;
  factor.analyze(matrix);
  ForceOutput out, trial_out;
  EdgeBlockMatrix stiffness;
  Eigen::VectorXd residual, trial_residual, step;
  const int increments = std::max(options.increments, 1);
  bool all_converged = true;
  for (int increment = 1; increment <= increments; ++increment) {
    const double load = static_cast<double>(increment) / increments;
    forces.evaluate(result.p, kEvalAll, *workspace, out);
    external_load(model, result.p, load, external);
    double norm = free_residual(model, out.f, external.h, residual);
    bool converged = norm <= options.tolerance * load_norm;
    for (int iteration = 0; iteration < options.max_iterations && !converged; ++iteration) {
      ++result.iterations;
      // K - dh/dp: the elastic K and a follower pressure's Jacobian (surface_loads.h). Its
      // symmetric part is factored; on an open patch its skew part (rim edges, vertex blocks)
      // makes the matrix non-symmetric, and GMRES on the factor solves with all of it.
      stiffness = out.K;
      for (const auto& [e, k] : external.k_h_edges)
        stiffness.edge_blocks[static_cast<size_t>(e)] -= k;
      for (size_t v = 0; v < stiffness.vertex_blocks.size(); ++v)
        stiffness.vertex_blocks[v] -= external.k_h[v];
      assign_skew_edges(external, model.topology->num_edges(), 1.0, stiffness);
      matrix.assign(stiffness);
      factor.factorize(matrix);
      if (!factor.ready()) break;  // not even a shifted factor: nothing to solve with
      const ConstrainedBlockOperator jacobian(*model.topology, stiffness, model.fixed);
      if (vertex_blocks_symmetric(jacobian)) {
        factor.solve(-residual, step);
      } else {
        step = Eigen::VectorXd::Zero(residual.size());
        krylov_solve(SolverType::kGmres, jacobian, FactorPreconditioner(factor), -residual, step,
                     {.tolerance = 1e-10, .max_iterations = 200});
      }
      if (!step.allFinite()) break;
      // Backtracking: Newton's step is a descent direction of the potential where K is definite;
      // elsewhere (LDL^T of an indefinite K) the shortest step that lowers it is taken.
      const double before = conservative ? potential(result.p, out.energy, external.h) : norm;
      Vec3Array trial = result.p;
      double scale = 1, trial_norm = norm;
      bool lowered = false;
      for (int backtrack = 0; backtrack < 30 && !lowered; ++backtrack, scale *= 0.5) {
        for (size_t v = 0; v < trial.size(); ++v)
          trial[v] = result.p[v] + scale * Vec3(step.segment<3>(3 * static_cast<Eigen::Index>(v)));
        forces.evaluate(trial, kEvalAll, *workspace, trial_out);
        external_load(model, trial, load, external);
        trial_norm = free_residual(model, trial_out.f, external.h, trial_residual);
        const double after =
            conservative ? potential(trial, trial_out.energy, external.h) : trial_norm;
        lowered = after <= before + 1e-14 * std::abs(before);
      }
      // No step along Newton's direction lowers it: Newton cannot go on from here (the increment
      // is reported unconverged rather than moved by a step that makes it worse).
      if (!lowered) break;
      result.p = trial;
      std::swap(out, trial_out);
      std::swap(residual, trial_residual);
      norm = trial_norm;
      converged = norm <= options.tolerance * load_norm;
    }
    all_converged = all_converged && converged;
    result.residual = norm / load_norm;
    if (progress) progress(increment, increments);
  }
  result.converged = all_converged;
  for (const Tet& tet : model.topology->tets())
    if (six_signed_volume(result.p, tet) <= 0) ++result.inverted_elements;
  return result;
}

}  // namespace softbody
