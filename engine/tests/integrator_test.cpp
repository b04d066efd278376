#include <gtest/gtest.h>

#include "engine/forces/verification.h"
#include "engine/mesh/box_generator.h"
#include "engine/sim/integrator.h"
#include "engine/sim/simulation.h"

namespace softbody {
namespace {

SimulationModel box_model(double alpha = 0, double beta = 0,
                          const Vec3& gravity = Vec3(0, -9.81, 0)) {
  TetMesh mesh = make_box_mesh({.nx = 4, .ny = 2, .nz = 2, .size = Vec3(0.2, 0.05, 0.05)});
  SimulationModel m;
  m.topology = std::make_shared<const MeshTopology>(mesh);
  Material material{2e5, 0.4, 1000};
  m.forces = make_force_model("stvk-edge", m.topology, mesh.vertices, material,
                              VolumetricKind::kQuadratic);
  m.rest = mesh.vertices;
  m.mass = lumped_masses(mesh, material.density);
  m.gravity = gravity;
  m.options.type = IntegratorType::kLinearizedBackwardEuler;  // seed 000's step, tested here
  m.options.dt = 0.01;
  m.options.alpha = alpha;
  m.options.beta = beta;
  m.options.solver = {.type = SolverType::kQmr, .tolerance = 1e-12, .max_iterations = 1000};
  return m;
}

Vec3 momentum(const SimulationModel& m, const SimulationState& s) {
  Vec3 total = Vec3::Zero();
  for (size_t i = 0; i < s.v.size(); ++i) total += m.mass[i] * s.v[i];
  return total;
}

double total_energy(const SimulationModel& m, const SimulationState& s) {
  double kinetic = 0;
  for (size_t i = 0; i < s.v.size(); ++i) kinetic += 0.5 * m.mass[i] * s.v[i].squaredNorm();
  return kinetic + m.forces->evaluate(s.p, kEvalEnergy).energy;
}

TEST(Integrator, FreeFallIsExact) {
  auto model = std::make_shared<const SimulationModel>(box_model());
  const std::unique_ptr<Integrator> integrator = make_integrator(model);
  SimulationState s = rest_state(*model);
  for (int k = 0; k < 20; ++k) integrator->step(s);
  // Backward Euler on a rigid translation: v_k = k T g, p_k = p_0 + T^2 g k (k + 1) / 2.
  const double t = 0.01;
  for (size_t i = 0; i < s.p.size(); ++i) {
    EXPECT_LT((s.v[i] - 20 * t * model->gravity).norm(), 1e-9);
    EXPECT_LT((s.p[i] - model->rest[i] - t * t * model->gravity * 20 * 21 / 2).norm(), 1e-9);
  }
  EXPECT_NEAR(s.t, 0.2, 1e-12);
  EXPECT_EQ(s.step, 20);
}

TEST(Integrator, ConservesMomentumAndDissipatesEnergy) {
  SimulationModel m = box_model(0.0, 0.002, Vec3::Zero());
  auto model = std::make_shared<const SimulationModel>(m);
  const std::unique_ptr<Integrator> integrator = make_integrator(model);
  SimulationState s = rest_state(*model);
  s.p = random_smooth_deformation(m.rest, 0.05, 3);  // released from a deformed shape
  for (size_t i = 0; i < s.v.size(); ++i) s.v[i] = Vec3(0.1, -0.05, 0.02) + 0.01 * s.p[i];
  const Vec3 p0 = momentum(m, s);
  double energy = total_energy(m, s);
  for (int k = 0; k < 30; ++k) {
    StepStats stats = integrator->step(s);
    EXPECT_FALSE(stats.failed);
    EXPECT_LT((momentum(m, s) - p0).norm(), 1e-8 * p0.norm()) << "step " << k;
    double next = total_energy(m, s);
    EXPECT_LE(next, energy * (1 + 1e-9)) << "step " << k;  // backward Euler never adds energy
    energy = next;
  }
}

TEST(Integrator, CantileverReachesStaticEquilibrium) {
  SimulationModel m = box_model(5.0, 0.01);
  m.fixed.assign(m.rest.size(), 0);
  const MeshTopology& topo = *m.topology;
  TetMesh mesh = make_box_mesh({.nx = 4, .ny = 2, .nz = 2, .size = Vec3(0.2, 0.05, 0.05)});
  for (Index v : mesh.vertex_sets.at("xmin")) m.fixed[static_cast<size_t>(v)] = 1;
  auto model = std::make_shared<const SimulationModel>(m);
  const std::unique_ptr<Integrator> integrator = make_integrator(model);
  SimulationState s = rest_state(*model);
  for (int k = 0; k < 400; ++k) integrator->step(s);
  // At rest the elastic force balances gravity at every free vertex: f = m g.
  ForceOutput out = m.forces->evaluate(s.p, kEvalForces);
  double residual = 0, weight = 0;
  for (size_t i = 0; i < s.p.size(); ++i) {
    if (m.fixed[i]) continue;
    residual = std::max(residual, (out.f[i] - m.mass[i] * m.gravity).norm());
    weight = std::max(weight, m.mass[i] * m.gravity.norm());
  }
  EXPECT_LT(residual, 1e-3 * weight);
  double tip = 0;
  for (Index v : mesh.vertex_sets.at("xmax"))
    tip += s.p[static_cast<size_t>(v)].y() - m.rest[static_cast<size_t>(v)].y();
  EXPECT_LT(tip, 0);  // it sags
  for (Index v : mesh.vertex_sets.at("xmin"))
    EXPECT_EQ(s.p[static_cast<size_t>(v)], m.rest[static_cast<size_t>(v)]);
  (void)topo;
}

TEST(Integrator, ComesToRestOnTheFloor) {
  SimulationModel m = box_model(2.0, 0.002);
  Obstacle floor;
  floor.normal = Vec3::UnitY();
  floor.trajectory = make_constant_trajectory(Vec3(0, -0.01, 0));
  floor.contact = {.stiffness = 1e4, .damping = 50, .friction = 1e4};
  m.obstacles = {floor};
  auto model = std::make_shared<const SimulationModel>(m);
  const std::unique_ptr<Integrator> integrator = make_integrator(model);
  SimulationState s = rest_state(*model);
  StepStats stats;
  for (int k = 0; k < 300; ++k) {
    stats = integrator->step(s);
    ASSERT_FALSE(stats.failed) << k;
  }
  EXPECT_GT(stats.contacts, 0);
  EXPECT_LT(stats.max_speed, 1e-2);
  double total_mass = 0, lowest = 1;
  for (size_t i = 0; i < s.p.size(); ++i) {
    total_mass += m.mass[i];
    lowest = std::min(lowest, s.p[i].y());
  }
  // The floor carries the weight with a penetration of about m g / (K_N * contacts).
  EXPECT_LT(-0.01 - lowest, 2 * total_mass * 9.81 / (1e4 * stats.contacts) + 1e-4);
  EXPECT_GT(-0.01 - lowest, 0);
}

TEST(Integrator, DivergingStepIsRolledBackNotPropagated) {
  SimulationModel m = box_model();
  m.options.max_speed = 1e-6;  // any motion counts as divergence
  auto model = std::make_shared<const SimulationModel>(m);
  const std::unique_ptr<Integrator> integrator = make_integrator(model);
  SimulationState s = rest_state(*model);
  s.v.assign(s.v.size(), Vec3(0, 1, 0));
  StepStats stats = integrator->step(s);
  EXPECT_EQ(stats.rolled_back, m.options.max_retries + 1);
  EXPECT_TRUE(stats.failed);
  EXPECT_EQ(s.p, m.rest);
  for (const Vec3& v : s.v) EXPECT_EQ(v, Vec3::Zero());
  EXPECT_NEAR(s.t, m.options.dt, 1e-15);
}

TEST(Integrator, CorrectionLimitsImpulsiveVelocities) {
  SimulationModel m = box_model(0, 0.001, Vec3::Zero());
  m.options.correction = true;
  m.options.correction_speed = 0.01;
  auto model = std::make_shared<const SimulationModel>(m);
  const std::unique_ptr<Integrator> integrator = make_integrator(model);
  SimulationState s = rest_state(*model);
  s.p = random_smooth_deformation(m.rest, 0.3, 4);  // far from rest: strongly nonlinear forces
  StepStats stats = integrator->step(s);
  EXPECT_LT(stats.min_lambda, 1.0);
  EXPECT_GT(stats.corrected_vertices, 0);
}

TEST(Integrator, SameInputsGiveBitIdenticalResults) {
  auto model = std::make_shared<const SimulationModel>(box_model(1, 0.001));
  SimulationState a = rest_state(*model), b = a;
  a.p = b.p = random_smooth_deformation(model->rest, 0.1, 2);
  const std::unique_ptr<Integrator> ia = make_integrator(model), ib = make_integrator(model);
  for (int k = 0; k < 10; ++k) {
    ia->step(a);
    ib->step(b);
  }
  EXPECT_EQ(a.p, b.p);
  EXPECT_EQ(a.v, b.v);
}

}  // namespace
}  // namespace softbody
