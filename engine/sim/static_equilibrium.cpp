#include "engine/sim/static_equilibrium.h"

#include <cmath>

#include "engine/solvers/sparse_cholesky.h"

namespace softbody {
namespace {

bool is_fixed(const SimulationModel& model, size_t v) {
  return !model.fixed.empty() && model.fixed[v] != 0;
}

// |f(p) - load| over the free vertices; fills `residual` (zero at fixed vertices).
double free_residual(const SimulationModel& model, const Vec3Array& f, double load,
                     Eigen::VectorXd& residual) {
  residual.resize(3 * static_cast<Eigen::Index>(f.size()));
  for (size_t v = 0; v < f.size(); ++v) {
    const Vec3 r =
        is_fixed(model, v) ? Vec3::Zero() : Vec3(f[v] - load * model.mass[v] * model.gravity);
    residual.segment<3>(3 * static_cast<Eigen::Index>(v)) = r;
  }
  return residual.norm();
}

double potential(const SimulationModel& model, const Vec3Array& p, double energy, double load) {
  double work = 0;
  for (size_t v = 0; v < p.size(); ++v) work += model.mass[v] * model.gravity.dot(p[v]);
  return energy - load * work;
}

}  // namespace

StaticResult solve_static(const SimulationModel& model, const StaticOptions& options,
                          const std::function<void(int, int)>& progress) {
  const ForceModel& forces = *model.forces;
  auto workspace = forces.make_workspace();
  StaticResult result;
  result.p = model.rest;
  double gravity_norm = 0;
  for (size_t v = 0; v < model.mass.size(); ++v)
    if (!is_fixed(model, v)) gravity_norm += std::pow(model.mass[v] * model.gravity.norm(), 2);
  gravity_norm = std::sqrt(gravity_norm);
  if (gravity_norm == 0) gravity_norm = 1;  // no load: the rest shape is the answer

  SymmetricCsc matrix(*model.topology, model.fixed);
  SparseCholesky factor;
  factor.analyze(matrix);
  ForceOutput out, trial_out;
  Eigen::VectorXd residual, step;
  const int increments = std::max(options.increments, 1);
  bool all_converged = true;
  for (int increment = 1; increment <= increments; ++increment) {
    const double load = static_cast<double>(increment) / increments;
    forces.evaluate(result.p, kEvalAll, *workspace, out);
    double norm = free_residual(model, out.f, load, residual);
    bool converged = norm <= options.tolerance * gravity_norm;
    for (int iteration = 0; iteration < options.max_iterations && !converged; ++iteration) {
      ++result.iterations;
      matrix.assign(out.K);
      factor.factorize(matrix);
      factor.solve(-residual, step);
      // Backtracking on the potential: Newton's step is a descent direction where K is
      // definite; elsewhere (LDL^T of an indefinite K) the shortest step that lowers it is taken.
      const double before = potential(model, result.p, out.energy, load);
      Vec3Array trial = result.p;
      double scale = 1;
      for (int backtrack = 0; backtrack < 30; ++backtrack, scale *= 0.5) {
        for (size_t v = 0; v < trial.size(); ++v)
          trial[v] = result.p[v] + scale * Vec3(step.segment<3>(3 * static_cast<Eigen::Index>(v)));
        forces.evaluate(trial, kEvalAll, *workspace, trial_out);
        if (potential(model, trial, trial_out.energy, load) <= before + 1e-14 * std::abs(before))
          break;
      }
      result.p = trial;
      std::swap(out, trial_out);
      norm = free_residual(model, out.f, load, residual);
      converged = norm <= options.tolerance * gravity_norm;
    }
    all_converged = all_converged && converged;
    result.residual = norm / gravity_norm;
    if (progress) progress(increment, increments);
  }
  result.converged = all_converged;
  for (const Tet& tet : model.topology->tets())
    if (six_signed_volume(result.p, tet) <= 0) ++result.inverted_elements;
  return result;
}

}  // namespace softbody
