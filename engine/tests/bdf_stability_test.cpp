// BDF(3)'s stability limit (engine/sim/stages/bdf_stability.h): order 3 amplifies lightly damped
// oscillations with 0 < omega h < ~2, so the step watches the third differences of its positions
// and drops to order 2 for a while when they keep growing. Tests: the watch's rule, a lightly
// damped body that order 3 alone rings up, the thesis's Ex. 10 constant-Q cube at 40 ms (which grew
// 14x in 36 s before), and a damped motion that never loses order 3.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numbers>

#include "engine/forces/viscoelastic.h"
#include "engine/mesh/box_generator.h"
#include "engine/scene/scene.h"
#include "engine/sim/integrator.h"
#include "engine/sim/stages/bdf_stability.h"
#include "engine/sim/stages/energy_guard.h"

namespace softbody {
namespace {

using OrderLimit = SimulationState::History::OrderLimit;

constexpr int kSlowWindow = kSlowRule.window_steps;

// Feeds `steps` third differences growing (or shrinking) by `factor` per step; returns the last.
double feed(OrderLimit& limit, double start, double factor, int steps, double floor = 1e-9) {
  double d = start;
  for (int i = 0; i < steps; ++i, d *= factor) observe_step(limit, 3, d, 0, floor);
  return d;
}

TEST(BdfStability, GrowingWindowsLimitTheOrderForAWhile) {
  OrderLimit limit;
  // Slow growth (0.1 % a step): the long watch's first window only sets the comparison, then
  // three growing windows; the short watch's windows grow too little together.
  double d = feed(limit, 1e-6, 1.001, 4 * kSlowWindow - 1);
  EXPECT_EQ(order_allowed(limit), 3);
  feed(limit, d, 1.001, 1);
  EXPECT_EQ(order_allowed(limit), 2);
  EXPECT_EQ(limit.reductions, 1);
  EXPECT_EQ(limit.reduced_steps, kReducedSteps);
  // Steps at order 2 count the reduction down; then order 3 again, watching afresh.
  for (int i = 0; i < kReducedSteps; ++i) observe_step(limit, 2, 1.0, 0, 1e-9);
  EXPECT_EQ(order_allowed(limit), 3);
  EXPECT_EQ(limit.slow, SimulationState::History::GrowthWatch{});
  EXPECT_EQ(limit.reductions, 1);
  // A second limit lasts twice as long (the body keeps the modes order 3 amplifies).
  feed(limit, 1e-6, 1.001, 4 * kSlowWindow);
  EXPECT_EQ(limit.reductions, 2);
  EXPECT_EQ(limit.reduced_steps, 2 * kReducedSteps);
  EXPECT_EQ(reduced_steps_after(100), kReducedSteps << kMaxDoublings);
  // Fast growth (5 % a step: 4.8x a short window) needs only the short watch's baseline and two
  // windows.
  OrderLimit fast;
  d = feed(fast, 1e-6, 1.05, 3 * kFastRule.window_steps - 1);
  EXPECT_EQ(fast.reductions, 0);
  feed(fast, d, 1.05, 1);
  EXPECT_EQ(fast.reductions, 1);
}

TEST(BdfStability, DecayingOrNegligibleDifferencesKeepOrderThree) {
  OrderLimit decaying, negligible, interrupted;
  feed(decaying, 1e-3, 0.999, 20 * kSlowWindow);
  EXPECT_EQ(decaying.reductions, 0);
  // Growth below the noise floor is the Newton tolerance's noise.
  feed(negligible, 1e-13, 1.001, 20 * kSlowWindow, 1e-9);
  EXPECT_EQ(negligible.reductions, 0);
  // Slow growth must last three long windows in a row.
  for (int k = 0; k < 10; ++k) {
    feed(interrupted, 1e-6, 1.001, 2 * kSlowWindow);
    feed(interrupted, 0.5e-6, 1.0, kSlowWindow);
  }
  EXPECT_EQ(interrupted.reductions, 0);
  // Smooth motion: a swing's third difference rises from each zero, but is a small part of the
  // step's motion ((omega h)^2 = 1e-3 at 200 steps a period), so it does not count.
  OrderLimit swing;
  const double omega_h = 2 * std::numbers::pi / 200;
  for (int i = 0; i < 2000; ++i) {
    const double phase = omega_h * i;
    observe_step(swing, 3, std::pow(omega_h, 3) * std::abs(std::sin(phase)),
                 omega_h * std::abs(std::sin(phase + 1)), 1e-12);
  }
  EXPECT_EQ(swing.reductions, 0);
}

// A free bar (no gravity) with strain-rate damping d_mu (relaxation time d_mu / mu), BDF(3) at dt,
// set vibrating by a smooth velocity field (bending and stretching).
struct VibratingBar {
  std::shared_ptr<SimulationModel> model = std::make_shared<SimulationModel>();
  SimulationState state;
  VibratingBar(double rate_mu, double dt) {
    const TetMesh mesh = make_box_mesh({.nx = 4, .ny = 2, .nz = 2, .size = Vec3(0.2, 0.05, 0.05)});
    SimulationModel& m = *model;
    m.topology = std::make_shared<const MeshTopology>(mesh);
    const Material material{2e4, 0.3, 1000};
    m.forces = make_force_model("stvk-tl", m.topology, mesh.vertices, material);
    ViscousMaterial viscous;
    viscous.rate_mu = rate_mu;
    viscous.rate_lambda = 1.5 * rate_mu;
    m.viscous = std::make_shared<const ViscousModel>(m.topology, mesh.vertices, viscous);
    m.rest = mesh.vertices;
    m.mass = lumped_masses(mesh, material.density);
    m.gravity = Vec3::Zero();
    m.options.type = IntegratorType::kBdf3;
    m.options.dt = dt;
    m.options.newton.tolerance = 1e-10;
    m.options.solver = {.type = SolverType::kDirect, .tolerance = 1e-12, .max_iterations = 1000};
    state = rest_state(m);
    for (size_t v = 0; v < state.p.size(); ++v) {
      const double u = (m.rest[v].x() - 0.1) / 0.1;
      state.v[v] = Vec3(0.01 * u, 0.02 * (1 - 2 * u * u), 0);
    }
  }
};

// Kinetic energy of the motion relative to the body's rigid motion: the deformation's.
double deformation_kinetic_energy(const std::vector<double>& mass, const Vec3Array& p,
                                  const Vec3Array& v) {
  return kinetic_energy(mass, velocity_relative_to_rigid_motion(mass, p, v));
}

// Lightly damped (d_mu = 2 Pa s: damping ratios ~0.005-0.01 on the lowest modes) and stepped at
// 20 ms, where those modes have omega h ~ 0.7-1.4: BDF(3)'s roots there have modulus ~1.03, so
// order 3 alone rings the bar up (the damping is too light to stop it): each 16-step window's sum
// grows ~2.6x, so the short watch (two growing windows that together grew 8x) sees it two or three
// windows after its baseline, steps 50-82 with the start-up's two, a transient of up to
// (1.03^2)^80 ~ 100x in energy; then order 2 damps it, and later ring-ups are caught as early.
// (With only the 32-step watch the first limit came at step 98, at 100x.)
TEST(BdfStability, ALightlyDampedBodyDoesNotRingUpUnderBdf3) {
  VibratingBar bar(2, 0.02);
  auto integrator = make_integrator(bar.model);
  SimulationState& s = bar.state;
  const std::vector<double>& mass = bar.model->mass;
  const double start = deformation_kinetic_energy(mass, s.p, s.v);
  int order3 = 0, order2 = 0, first_order2 = -1;
  double peak = 0;
  for (int i = 0; i < 1000; ++i) {
    const StepStats stats = integrator->step(s);
    ASSERT_FALSE(stats.failed) << "step " << i;
    ASSERT_EQ(stats.rolled_back, 0) << "step " << i;
    order3 += stats.bdf_order == 3;
    order2 += stats.bdf_order == 2;
    if (i > 2 && stats.bdf_order == 2 && first_order2 < 0) first_order2 = i;
    peak = std::max(peak, deformation_kinetic_energy(mass, s.p, s.v));
  }
  const double end = deformation_kinetic_energy(mass, s.p, s.v);
  std::printf(
      "lightly damped bar, BDF(3) at 20 ms: deformation's kinetic energy %.3e -> %.3e "
      "(peak %.3e); first at order 2 in step %d; %d steps at order 3, %d at order 2, %d "
      "reductions\n",
      start, end, peak, first_order2, order3, order2, s.history.order_limit.reductions);
  const int window = kFastRule.window_steps;
  EXPECT_GE(first_order2, 3 * window);      // it runs at order 3 until it sees growth
  EXPECT_LE(first_order2, 5 * window + 2);  // and the short watch sees it soon
  EXPECT_LT(peak, 100 * start);
  EXPECT_LT(end, 1e-3 * start);
}

// Seed 001 Ex. 10's constant-Q cube (Q = 4.8, nu = 0.495) with the thesis's BDF(3) at h = 40 ms,
// sheared for 4 s and let go: the three-term fit leaves shear modes with damping ratios near 0.07
// and omega h ~ 1, which order 3 amplified (the fastest vertex 6e-3 m/s at 20 s, 8e-2 at 56 s
// before the limit). With it the body comes to rest.
TEST(BdfStability, TheConstantQCubeComesToRestAtFortyMilliseconds) {
  const nlohmann::json doc = nlohmann::json::parse(R"({
    "name": "ex10", "units": "m",
    "mesh": {"box": {"cells": [4, 4, 4], "size": [0.1, 0.1, 0.1]}},
    "material": {"model": "stvk-tl", "nu": 0.495, "density": 1000,
                 "viscoelastic": {"constant_q": {"Q": 4.8, "mu": 2500, "frequency": 2}}},
    "dt": 0.04,
    "gravity": [0, 0, 0],
    "integrator": {"type": "bdf3"},
    "solver": {"type": "auto", "tolerance": 1e-8},
    "fixed": [{"set": "ymin"}],
    "loads": [{"set": "ymax", "traction": [10, 0, 0], "curve": [[0, 1], [4, 1], [4.005, 0]]}]
  })");
  const Scene scene = build_scene(doc, "ex10", ".");
  auto integrator = make_integrator(scene.model);
  SimulationState s = rest_state(*scene.model);
  double late = 0;
  int order2 = 0;
  for (int i = 0; i < 1500; ++i) {  // 60 s
    const StepStats stats = integrator->step(s);
    ASSERT_FALSE(stats.failed) << "step " << i;
    order2 += stats.bdf_order == 2;
    if (s.t > 52) late = std::max(late, stats.max_speed);
  }
  std::printf(
      "Ex. 10 cube, BDF(3) at 40 ms: fastest vertex over the last 8 s %.2e m/s; %d of 1500 "
      "steps at order 2\n",
      late, order2);
  EXPECT_LT(late, 1e-4);
  EXPECT_LT(order2, 750);  // mostly order 3
}

// Damped enough (d_mu = 20 Pa s: damping ratios ~0.05 and up, growing with frequency) and at
// 5 ms, every mode decays under BDF(3): no growing mode is mistaken, order 3 throughout.
TEST(BdfStability, ADampedMotionKeepsOrderThree) {
  VibratingBar bar(20, 0.005);
  auto integrator = make_integrator(bar.model);
  for (int i = 0; i < 800; ++i) {
    const StepStats stats = integrator->step(bar.state);
    ASSERT_FALSE(stats.failed);
    if (i >= 2) {
      ASSERT_EQ(stats.bdf_order, 3) << "step " << i;
    }
  }
  EXPECT_EQ(bar.state.history.order_limit.reductions, 0);
}

}  // namespace
}  // namespace softbody
