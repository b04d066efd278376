// BDF(1-3) by Newton (bdf_newton.h): each integrator converges at its order, the order builds up
// from the state's history and restarts where the history does not fit, and the history is state.
#include <gtest/gtest.h>

#include "engine/forces/viscoelastic.h"

#include <cmath>
#include <cstdio>

#include "engine/mesh/box_generator.h"
#include "engine/sim/integrator.h"

namespace softbody {
namespace {

// A soft free bar (no gravity, no damping) set moving from its rest shape by a smooth, non-rigid
// velocity field. Its acceleration at t = 0 is zero (rest shape), so backward Euler's start-up
// step is third-order accurate locally and does not spoil BDF(3)'s order.
SimulationModel free_bar(IntegratorType type, double dt, bool rate_damped = false) {
  const TetMesh mesh = make_box_mesh({.nx = 4, .ny = 2, .nz = 2, .size = Vec3(0.2, 0.05, 0.05)});
  SimulationModel m;
  m.topology = std::make_shared<const MeshTopology>(mesh);
  const Material material{2e4, 0.3, 1000};
  m.forces = make_force_model("stvk-tl", m.topology, mesh.vertices, material);
  if (rate_damped) {
    // Correspondence damping with a relaxation time d_mu / mu of ~2.6 ms, a few steps.
    ViscousMaterial viscous;
    viscous.rate_mu = 20;
    viscous.rate_lambda = 30;
    m.viscous = std::make_shared<const ViscousModel>(m.topology, mesh.vertices, viscous);
  }
  m.rest = mesh.vertices;
  m.mass = lumped_masses(mesh, material.density);
  m.gravity = Vec3::Zero();
  m.options.type = type;
  m.options.dt = dt;
  m.options.newton.tolerance = 1e-13;
  m.options.newton.max_iterations = 50;
  m.options.solver = {.type = SolverType::kDirect, .tolerance = 1e-13, .max_iterations = 1000};
  return m;
}

SimulationState moving_start(const SimulationModel& m) {
  SimulationState s = rest_state(m);
  for (size_t v = 0; v < s.p.size(); ++v) {
    const Vec3& x = m.rest[v];
    const double u = (x.x() - 0.1) / 0.1;  // -1 .. 1 along the bar
    s.v[v] = Vec3(0.05 * u, 0.1 * (1 - u * u), 0.02 * u * u);
  }
  return s;
}

double distance(const Vec3Array& a, const Vec3Array& b) {
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, (a[i] - b[i]).norm());
  return d;
}

// Self-convergence: with steps h, h/2, h/4 the differences of successive answers at t_end shrink
// by 2^k. Every run starts at t = 2H (H its step) with the history H apart taken from one fine run:
// backward Euler's start-up step has an O(H^2) velocity error that would otherwise cap every
// order at 2 (the start-up of a real session; this measures the formula).
void expect_orders(bool rate_damped) {
  const double t_end = 0.02, h = 0.0005;
  const int fine_per_quarter = 4;  // fine steps per h/4
  const double fine_dt = h / 4 / fine_per_quarter;
  std::vector<SimulationState> fine;  // at every fine step
  {
    auto model = std::make_shared<const SimulationModel>(
        free_bar(IntegratorType::kBdf3, fine_dt, rate_damped));
    auto integrator = make_integrator(model);
    SimulationState s = moving_start(*model);
    fine.push_back(s);
    for (int i = 0; i < 8 * fine_per_quarter; ++i) {
      integrator->step(s);
      fine.push_back(s);
    }
  }
  const struct {
    IntegratorType type;
    double order;
  } cases[] = {
      {IntegratorType::kImplicitEuler, 1}, {IntegratorType::kBdf2, 2}, {IntegratorType::kBdf3, 3}};
  for (const auto& c : cases) {
    Vec3Array answers[3];
    for (int k = 0; k < 3; ++k) {
      const double step = h / (1 << k);
      const int stride = fine_per_quarter * (4 >> k);  // fine steps per step
      auto model = std::make_shared<const SimulationModel>(free_bar(c.type, step, rate_damped));
      auto integrator = make_integrator(model);
      SimulationState s = fine[static_cast<size_t>(2 * stride)];
      s.t = 2 * step;
      s.history = {};
      for (int j = 1; j <= 2; ++j) {
        s.history.p.push_back(fine[static_cast<size_t>((2 - j) * stride)].p);
        s.history.v.push_back(fine[static_cast<size_t>((2 - j) * stride)].v);
      }
      s.history.dt = step;
      s.history.t = s.t;
      const int steps = static_cast<int>(std::lround((t_end - 2 * step) / step));
      for (int i = 0; i < steps; ++i) {
        const StepStats stats = integrator->step(s);
        EXPECT_FALSE(stats.newton_fallback);
        EXPECT_FALSE(stats.failed);
      }
      answers[k] = s.p;
    }
    const double observed =
        std::log2(distance(answers[0], answers[1]) / distance(answers[1], answers[2]));
    std::printf("%s%s: observed order %.3f\n", integrator_type_name(c.type),
                rate_damped ? " (rate damped)" : "", observed);
    EXPECT_NEAR(observed, c.order, 0.25) << integrator_type_name(c.type);
  }
}

TEST(Bdf, EachIntegratorConvergesAtItsOrder) {
  expect_orders(false);
}

// The viscous rate terms differentiate the strain by the integrator's own formula
// (ViscousModel::RateFormula): with backward Euler's difference BDF(2) and BDF(3) fell to first
// order on a damped body.
TEST(Bdf, EachIntegratorKeepsItsOrderWithStrainRateDamping) {
  expect_orders(true);
}

TEST(Bdf, TheOrderBuildsUpFromTheHistoryAndRestartsWithANewStep) {
  auto model = std::make_shared<const SimulationModel>(free_bar(IntegratorType::kBdf3, 0.004));
  auto integrator = make_integrator(model);
  SimulationState s = moving_start(*model);
  EXPECT_EQ(integrator->step(s).bdf_order, 1);
  EXPECT_EQ(integrator->step(s).bdf_order, 2);
  EXPECT_EQ(integrator->step(s).bdf_order, 3);
  EXPECT_EQ(integrator->step(s).bdf_order, 3);
  EXPECT_EQ(s.history.p.size(), 2u);
  // A state another integrator stepped last has no history that fits: order 1 again.
  SimulationState elsewhere = s;
  SimulationModel euler = *model;
  euler.options.type = IntegratorType::kLinearizedBackwardEuler;
  make_integrator(std::make_shared<const SimulationModel>(euler))->step(elsewhere);
  EXPECT_EQ(integrator->step(elsewhere).bdf_order, 1);
  // A new dt restarts too.
  SimulationModel halved = *model;
  halved.options.dt = 0.002;
  auto finer = make_integrator(std::make_shared<const SimulationModel>(halved));
  SimulationState same = s;
  EXPECT_EQ(finer->step(same).bdf_order, 1);
  EXPECT_EQ(finer->step(same).bdf_order, 2);
}

// The history is state: a fresh integrator continues a copied state bit for bit.
TEST(Bdf, AFreshIntegratorContinuesTheHistoryBitForBit) {
  auto model = std::make_shared<const SimulationModel>(free_bar(IntegratorType::kBdf3, 0.004));
  auto first = make_integrator(model);
  SimulationState s = moving_start(*model);
  for (int i = 0; i < 5; ++i) first->step(s);
  SimulationState copy = s;
  auto second = make_integrator(model);
  for (int i = 0; i < 5; ++i) {
    const StepStats a = first->step(s), b = second->step(copy);
    EXPECT_EQ(a.bdf_order, 3);
    EXPECT_EQ(b.bdf_order, 3);
  }
  EXPECT_EQ(s.p, copy.p);
  EXPECT_EQ(s.v, copy.v);
  EXPECT_EQ(s.history, copy.history);
}

}  // namespace
}  // namespace softbody
