#include "engine/sim/toy_spring.h"

#include <cmath>

#include "engine/forces/vertex_springs.h"
#include "engine/mesh/box_generator.h"

namespace softbody {

SimulationModel ToySpring::model(IntegratorType type, double dt) const {
  const TetMesh mesh = make_box_mesh({.nx = 1, .ny = 1, .nz = 1, .size = Vec3(0.1, 0.1, 0.1)});
  SimulationModel m;
  m.topology = std::make_shared<const MeshTopology>(mesh);
  m.rest = mesh.vertices;
  m.mass = lumped_masses(mesh, 1000);
  std::vector<double> stiffness;
  for (double mass : m.mass) stiffness.push_back(omega * omega * mass);
  m.forces = std::make_shared<VertexSpringModel>(m.topology, mesh.vertices, stiffness);
  m.gravity = Vec3::Zero();
  m.options.type = type;
  m.options.dt = dt;
  m.options.newton.tolerance = 1e-13;
  m.options.newton.max_iterations = 50;
  m.options.solver = {.type = SolverType::kDirect, .tolerance = 1e-13, .max_iterations = 1000};
  return m;
}

void ToySpring::exact(const SimulationModel& m, double t, Vec3Array& p, Vec3Array& v) const {
  p = m.rest;
  v.assign(m.rest.size(), Vec3::Zero());
  for (size_t i = 0; i < p.size(); ++i) {
    p[i].x() += amplitude * std::cos(omega * t);
    v[i].x() = -amplitude * omega * std::sin(omega * t);
  }
}

SimulationState ToySpring::exact_start(const SimulationModel& m) const {
  SimulationState s = rest_state(m);
  exact(m, 0, s.p, s.v);
  const double h = m.options.dt;
  for (int j = 1; j <= 2; ++j) {
    Vec3Array p, v;
    exact(m, -j * h, p, v);
    s.history.p.push_back(p);
    s.history.v.push_back(v);
  }
  s.history.dt = h;
  s.history.t = 0;
  return s;
}

double ToySpring::error(const SimulationModel& m, const SimulationState& s) const {
  Vec3Array p, v;
  exact(m, s.t, p, v);
  double worst = 0;
  for (size_t i = 0; i < p.size(); ++i)
    worst = std::max(worst, std::hypot((s.p[i] - p[i]).norm(), (s.v[i] - v[i]).norm() / omega));
  return worst;
}

}  // namespace softbody
