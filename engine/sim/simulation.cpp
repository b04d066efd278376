#include "engine/sim/simulation.h"

#include <algorithm>

namespace softbody {

SimulationState rest_state(const SimulationModel& model) {
  SimulationState state;
  state.p = model.rest;
  state.v.assign(model.rest.size(), Vec3::Zero());
  if (model.initial_velocity.size() == model.rest.size()) state.v = model.initial_velocity;
  return state;
}

double mean_distance(const Vec3Array& a, const Vec3Array& b, double diagonal) {
  double distance = 0;
  for (size_t i = 0; i < a.size(); ++i) distance += (a[i] - b[i]).norm();
  return distance / static_cast<double>(a.size()) / diagonal;
}

double shape_error(const Vec3Array& positions, const Vec3Array& rest) {
  return mean_distance(positions, rest, bounding_box(rest).diagonal());
}

IntegratorOptions reference_options(IntegratorOptions options) {
  // A fixed-iteration solver converged is implicit Euler on the same energy: that is its
  // reference (the accuracy it gives up is its distance to it).
  if (options.type == IntegratorType::kVbd || options.type == IntegratorType::kProjective ||
      options.type == IntegratorType::kQuasiNewton || options.type == IntegratorType::kXpbd)
    options.type = IntegratorType::kImplicitEuler;
  options.solver.type = SolverType::kDirect;
  options.solver.tolerance = 1e-10;
  options.solver.max_iterations = 1000;
  options.solver.refactor = RefactorMode::kSync;
  options.solver.time_budget_s = 0;
  options.newton.tolerance = 1e-10;
  options.newton.max_iterations = std::max(options.newton.max_iterations, 50);
  return options;
}

std::vector<double> lumped_masses(const TetMesh& mesh, double density) {
  std::vector<double> mass(mesh.vertices.size(), 0.0);
  for (const Tet& t : mesh.tets) {
    const double quarter = density * six_signed_volume(mesh.vertices, t) / 24.0;
    for (Index v : t) mass[static_cast<size_t>(v)] += quarter;
  }
  return mass;
}

Momentum momentum(const std::vector<double>& mass, const Vec3Array& p, const Vec3Array& v) {
  Momentum out;
  for (size_t i = 0; i < p.size(); ++i) {
    out.centre += mass[i] * p[i];
    out.mass += mass[i];
    out.linear += mass[i] * v[i];
  }
  if (out.mass > 0) out.centre /= out.mass;
  for (size_t i = 0; i < p.size(); ++i) out.angular += mass[i] * (p[i] - out.centre).cross(v[i]);
  return out;
}

double kinetic_energy(const std::vector<double>& mass, const Vec3Array& v) {
  double k = 0;
  for (size_t i = 0; i < v.size(); ++i) k += 0.5 * mass[i] * v[i].squaredNorm();
  return k;
}

}  // namespace softbody
