// The implicit-euler integrator: it solves the nonlinear backward-Euler equations (checked here
// against the force model directly), its converged answer does not depend on the solver's
// definiteness fix, and every memory it needs is in the state.
#include <gtest/gtest.h>

#include <cstdio>

#include "engine/forces/verification.h"
#include "engine/mesh/box_generator.h"
#include "engine/sim/integrator.h"

namespace softbody {
namespace {

SimulationModel box_model(IntegratorType type, double alpha, double beta, const Vec3& gravity) {
  TetMesh mesh = make_box_mesh({.nx = 4, .ny = 2, .nz = 2, .size = Vec3(0.2, 0.05, 0.05)});
  SimulationModel m;
  m.topology = std::make_shared<const MeshTopology>(mesh);
  Material material{2e5, 0.4, 1000};
  m.forces = make_force_model("stvk-edge", m.topology, mesh.vertices, material,
                              VolumetricKind::kQuadratic);
  m.rest = mesh.vertices;
  m.mass = lumped_masses(mesh, material.density);
  m.gravity = gravity;
  m.options.type = type;
  m.options.dt = 0.01;
  m.options.alpha = alpha;
  m.options.beta = beta;
  m.options.newton.tolerance = 1e-11;
  m.options.solver = {.type = SolverType::kAuto, .tolerance = 1e-12, .max_iterations = 1000};
  return m;
}

// |M (v1 - v0) / T + alpha M v1 + beta K(p0) v1 + f(p0 + T v1) - M g| over the size of its terms,
// computed from the force model alone: how far (p1, v1) is from the backward-Euler step.
double backward_euler_error(const SimulationModel& m, const SimulationState& s0,
                            const SimulationState& s1) {
  const double dt = m.options.dt;
  const ForceOutput start = m.forces->evaluate(s0.p, kEvalForces | kEvalStiffness);
  const ForceOutput end = m.forces->evaluate(s1.p, kEvalForces);
  Vec3Array kv;
  start.K.multiply(*m.topology, s1.v, kv);
  double error = 0, scale = 0;
  for (size_t i = 0; i < s0.p.size(); ++i) {
    const Vec3 inertia = m.mass[i] * (s1.v[i] - s0.v[i]) / dt;
    const Vec3 r = inertia + m.options.alpha * m.mass[i] * s1.v[i] + m.options.beta * kv[i] +
                   end.f[i] - m.mass[i] * m.gravity;
    error += r.squaredNorm();
    scale += (m.mass[i] * s0.v[i] / dt).squaredNorm() + start.f[i].squaredNorm() +
             (m.mass[i] * m.gravity).squaredNorm();
  }
  return std::sqrt(error / scale);
}

TEST(ImplicitEuler, SolvesTheNonlinearStepEquations) {
  for (IntegratorType type :
       {IntegratorType::kImplicitEuler, IntegratorType::kLinearizedBackwardEuler}) {
    auto model =
        std::make_shared<const SimulationModel>(box_model(type, 0.5, 0.002, Vec3(0, -9.81, 0)));
    const std::unique_ptr<Integrator> integrator = make_integrator(model);
    SimulationState s0 = rest_state(*model);
    s0.p = random_smooth_deformation(model->rest, 0.2, 3);  // far from rest: nonlinear forces
    SimulationState s1 = s0;
    const StepStats stats = integrator->step(s1);
    const double error = backward_euler_error(*model, s0, s1);
    if (type == IntegratorType::kImplicitEuler) {
      EXPECT_LE(error, 1e-9);
      EXPECT_TRUE(stats.converged);
      EXPECT_FALSE(stats.newton_fallback);
      EXPECT_GE(stats.newton_iterations, 2);
      EXPECT_LE(stats.residual, model->options.newton.tolerance);
    } else {
      EXPECT_GT(error, 1e-4);  // one linearization: the equations hold only approximately
    }
  }
}

TEST(ImplicitEuler, FreeFallIsExact) {
  auto model = std::make_shared<const SimulationModel>(
      box_model(IntegratorType::kImplicitEuler, 0, 0, Vec3(0, -9.81, 0)));
  const std::unique_ptr<Integrator> integrator = make_integrator(model);
  SimulationState s = rest_state(*model);
  for (int k = 0; k < 10; ++k) integrator->step(s);
  // Backward Euler: v_n = n T g, p_n = p_0 + T^2 g n (n + 1) / 2.
  const double t = model->options.dt;
  for (size_t i = 0; i < s.p.size(); ++i) {
    EXPECT_NEAR((s.v[i] - 10 * t * model->gravity).norm(), 0, 1e-10);
    EXPECT_NEAR((s.p[i] - model->rest[i] - t * t * 55 * model->gravity).norm(), 0, 1e-10);
  }
}

TEST(ImplicitEuler, ConservesMomentumWithoutExternalForces) {
  auto model = std::make_shared<const SimulationModel>(
      box_model(IntegratorType::kImplicitEuler, 0, 0, Vec3::Zero()));
  const std::unique_ptr<Integrator> integrator = make_integrator(model);
  SimulationState s = rest_state(*model);
  s.p = random_smooth_deformation(model->rest, 0.15, 5);
  for (size_t i = 0; i < s.v.size(); ++i) s.v[i] = Vec3(0.1, 0, 0.05 * (i % 3));
  auto momentum = [&] {
    Vec3 total = Vec3::Zero();
    for (size_t i = 0; i < s.v.size(); ++i) total += model->mass[i] * s.v[i];
    return total;
  };
  const Vec3 before = momentum();
  for (int k = 0; k < 10; ++k) EXPECT_FALSE(integrator->step(s).newton_fallback);
  EXPECT_LE((momentum() - before).norm(), 1e-8 * before.norm());
}

// A strongly compressed body makes K indefinite; the solver's default fix solves A + sigma I
// instead. Under Newton that changes the iterations only: the steps agree with the exact
// (LDL^T) solves to the Newton tolerance.
TEST(ImplicitEuler, ConvergedStepsDoNotDependOnTheDefinitenessFix) {
  SimulationModel shifted = box_model(IntegratorType::kImplicitEuler, 0, 0, Vec3::Zero());
  shifted.options.solver.definite = true;
  shifted.options.newton.max_iterations = 50;
  SimulationModel exact = shifted;
  exact.options.solver.definite = false;
  SimulationState start = rest_state(shifted);
  for (size_t i = 0; i < start.p.size(); ++i) {
    start.p[i].x() = 0.7 * shifted.rest[i].x();  // squashed to 70 % of its length
    start.v[i] = Vec3(0, 0, 0);
  }
  auto run = [&](const SimulationModel& m, double& largest_shift) {
    auto model = std::make_shared<const SimulationModel>(m);
    const std::unique_ptr<Integrator> integrator = make_integrator(model);
    SimulationState s = start;
    largest_shift = 0;
    for (int k = 0; k < 8; ++k) {
      const StepStats stats = integrator->step(s);
      EXPECT_FALSE(stats.newton_fallback)
          << "step " << k << " definite " << m.options.solver.definite << " residual "
          << stats.residual << " iterations " << stats.newton_iterations << " updates "
          << stats.jacobian_updates << " backtracks " << stats.line_search_backtracks;
      largest_shift = std::max(largest_shift, stats.definiteness_shift);
    }
    return s;
  };
  double shift_with = 0, shift_without = 0;
  const SimulationState a = run(shifted, shift_with), b = run(exact, shift_without);
  EXPECT_GT(shift_with, 0);  // the fix was used: the comparison means something
  EXPECT_EQ(shift_without, 0);
  const double diagonal = bounding_box(shifted.rest).diagonal();
  EXPECT_LE(mean_distance(a.p, b.p, diagonal), 1e-8);
  // The linearized step's answer is its one linear solve, so there the fix is physics.
  shifted.options.type = exact.options.type = IntegratorType::kLinearizedBackwardEuler;
  const SimulationState c = run(shifted, shift_with), d = run(exact, shift_without);
  std::printf("distance shift vs exact: implicit-euler %.3g, linearized %.3g of the diagonal\n",
              mean_distance(a.p, b.p, diagonal), mean_distance(c.p, d.p, diagonal));
  EXPECT_GT(mean_distance(c.p, d.p, diagonal), 1e-5);
}

// A cube squeezed to 87 % of its width (scenes/grasp.json's cube between its jaws) released: each
// step's root has an indefinite step matrix (a saddle of the step's potential), which Newton's
// descent directions circle. After descent_iterations Newton heads for the root (GMRES on J,
// |G|^2 line search): the same steps, to Newton's tolerance, in far fewer iterations, where
// descent alone runs out of them.
TEST(ImplicitEuler, AnIndefiniteRootIsReachedByRootDirectionsAfterTheDescentOnes) {
  TetMesh mesh = make_box_mesh({.nx = 6, .ny = 6, .nz = 6, .size = Vec3(0.03, 0.03, 0.03)});
  SimulationModel m;
  m.topology = std::make_shared<const MeshTopology>(mesh);
  const Material material{5e4, 0.3, 1000};
  m.forces = make_force_model("stvk-edge", m.topology, mesh.vertices, material,
                              VolumetricKind::kQuadratic);
  m.rest = mesh.vertices;
  m.mass = lumped_masses(mesh, material.density);
  m.options.type = IntegratorType::kImplicitEuler;
  m.options.dt = 0.01;
  m.options.beta = 0.002;
  m.options.newton.tolerance = 1e-10;  // to compare roots
  SimulationModel descent_only = m;
  descent_only.options.newton.descent_iterations = descent_only.options.newton.max_iterations;
  SimulationState start = rest_state(m);
  for (size_t i = 0; i < start.p.size(); ++i) start.p[i].x() = 0.87 * m.rest[i].x();
  struct Run {
    SimulationState state;
    int iterations = 0, most_iterations = 0, fallbacks = 0;
    double largest_shift = 0;
  };
  const auto run = [&](const SimulationModel& model) {
    const std::unique_ptr<Integrator> integrator =
        make_integrator(std::make_shared<const SimulationModel>(model));
    Run r{start};
    for (int k = 0; k < 3; ++k) {
      const StepStats stats = integrator->step(r.state);
      EXPECT_FALSE(stats.failed);
      r.iterations += stats.newton_iterations;
      r.most_iterations = std::max(r.most_iterations, stats.newton_iterations);
      r.fallbacks += stats.newton_fallback;
      r.largest_shift = std::max(r.largest_shift, stats.definiteness_shift);
    }
    return r;
  };
  SimulationModel exact = m;  // LDL^T: Newton's own directions, no definite stand-in
  exact.options.solver.definite = false;
  const Run switching = run(m), descending = run(descent_only), reference = run(exact);
  std::printf(
      "newton iterations over 3 steps: %d switching to root directions (at most %d a step, "
      "%d fallbacks), %d descent only (%d fallbacks), %d exact (%d fallbacks)\n",
      switching.iterations, switching.most_iterations, switching.fallbacks, descending.iterations,
      descending.fallbacks, reference.iterations, reference.fallbacks);
  EXPECT_GT(switching.largest_shift, 0);     // the step matrices were indefinite
  EXPECT_EQ(switching.fallbacks, 0);         // descent alone: 2 of the 3 steps (20 iterations each)
  EXPECT_LE(switching.most_iterations, 15);  // measured 11 (max_iterations: 20)
  ASSERT_EQ(reference.fallbacks, 0);
  const double diagonal = bounding_box(m.rest).diagonal();
  const double distance = mean_distance(switching.state.p, reference.state.p, diagonal);
  std::printf("mean distance to the exact directions' steps: %.3g of the diagonal\n", distance);
  EXPECT_LE(distance, 1e-9);  // the same root
}

// A body at rest under no load: the step equation's terms are round-off, and a residual relative
// to them never converged: every step took all Newton iterations and fell back (the liver slab
// without gravity cost 80 ms a step instead of 3). Now forces below those of a strain of 1e-6
// over the body count as none: no iteration, no fallback, the body stays put.
TEST(ImplicitEuler, ABodyAtRestUnderNoLoadStaysPutWithoutIterating) {
  for (const IntegratorType type :
       {IntegratorType::kImplicitEuler, IntegratorType::kBdf2, IntegratorType::kBdf3}) {
    SCOPED_TRACE(integrator_type_name(type));
    SimulationModel m = box_model(type, 0.5, 0, Vec3::Zero());
    m.material = Material{2e5, 0.4, 1000};
    m.options.newton.tolerance = 1e-6;  // the default
    auto model = std::make_shared<const SimulationModel>(m);
    const std::unique_ptr<Integrator> integrator = make_integrator(model);
    SimulationState s = rest_state(*model);
    for (int step = 0; step < 5; ++step) {
      const StepStats stats = integrator->step(s);
      EXPECT_EQ(stats.newton_iterations, 0);
      EXPECT_FALSE(stats.newton_fallback);
      EXPECT_TRUE(stats.converged);
    }
    double moved = 0;
    for (size_t i = 0; i < s.p.size(); ++i) moved = std::max(moved, (s.p[i] - m.rest[i]).norm());
    EXPECT_LT(moved, 1e-12);
  }
}

// A tolerance below what round-off lets the residual reach (1e-20 of the equation's terms) ends
// where Newton's direction no longer moves the positions beyond round-off: the step converges,
// says so, and is the step a reachable tolerance gives, not a fallback to the linearized step
// after max_iterations on noise.
TEST(ImplicitEuler, ATolerancePastRoundOffEndsAtTheRoundOffFloorNotInAFallback) {
  const auto deformed_step = [](double tolerance, StepStats& stats) {
    SimulationModel m = box_model(IntegratorType::kImplicitEuler, 0.5, 0.002, Vec3(0, -9.81, 0));
    m.options.newton.tolerance = tolerance;
    auto model = std::make_shared<const SimulationModel>(m);
    const std::unique_ptr<Integrator> integrator = make_integrator(model);
    SimulationState s = rest_state(*model);
    s.p = random_smooth_deformation(m.rest, 0.05, 4);
    stats = integrator->step(s);
    return s;
  };
  StepStats reachable, past_round_off;
  const SimulationState a = deformed_step(1e-10, reachable);
  const SimulationState b = deformed_step(1e-20, past_round_off);
  EXPECT_FALSE(reachable.newton_round_off);
  EXPECT_FALSE(reachable.newton_fallback);
  EXPECT_TRUE(past_round_off.newton_round_off);
  EXPECT_FALSE(past_round_off.newton_fallback);
  EXPECT_TRUE(past_round_off.converged);
  EXPECT_GT(past_round_off.residual, 1e-20) << "the floor lies above the tolerance asked";
  EXPECT_LT(past_round_off.newton_iterations, 20);
  const double diagonal = bounding_box(a.p).diagonal();
  for (size_t i = 0; i < a.p.size(); ++i)
    EXPECT_LT((a.p[i] - b.p[i]).norm(), 1e-9 * diagonal) << "vertex " << i;
}

TEST(ImplicitEuler, FallsBackToTheLinearizedStepAndSaysSo) {
  SimulationModel m = box_model(IntegratorType::kImplicitEuler, 0, 0.001, Vec3::Zero());
  m.options.newton.max_iterations = 1;
  m.options.newton.tolerance = 1e-14;
  auto model = std::make_shared<const SimulationModel>(m);
  const std::unique_ptr<Integrator> integrator = make_integrator(model);
  SimulationState s = rest_state(*model);
  s.p = random_smooth_deformation(m.rest, 0.3, 4);
  const StepStats stats = integrator->step(s);
  EXPECT_TRUE(stats.newton_fallback);
  EXPECT_FALSE(stats.failed);
  for (const Vec3& p : s.p) EXPECT_TRUE(p.allFinite());
}

// Everything an integrator carries between steps is in the state: a new integrator handed a
// state mid-run continues it bit for bit (what settings changes, snapshots and migration do).
TEST(IntegratorFamily, AFreshIntegratorContinuesAStateBitForBit) {
  for (IntegratorType type :
       {IntegratorType::kLinearizedBackwardEuler, IntegratorType::kImplicitEuler}) {
    auto model =
        std::make_shared<const SimulationModel>(box_model(type, 0.2, 0.001, Vec3(0, -9.81, 0)));
    const std::unique_ptr<Integrator> first = make_integrator(model);
    SimulationState s = rest_state(*model);
    s.p = random_smooth_deformation(model->rest, 0.1, 2);
    for (int k = 0; k < 5; ++k) first->step(s);
    ASSERT_TRUE(s.solver.factored) << integrator_type_name(type);  // a factor is being reused
    SimulationState copy = s;
    const std::unique_ptr<Integrator> second = make_integrator(model);
    for (int k = 0; k < 5; ++k) {
      first->step(s);
      second->step(copy);
    }
    EXPECT_EQ(s.p, copy.p) << integrator_type_name(type);
    EXPECT_EQ(s.v, copy.v) << integrator_type_name(type);
    EXPECT_EQ(s.solver.factorizations, copy.solver.factorizations);
  }
}

TEST(IntegratorFamily, NamesComeFromOneTable) {
  for (const std::string& name : integrator_type_names())
    EXPECT_EQ(integrator_type_name(parse_integrator_type(name)), name);
  EXPECT_THROW(parse_integrator_type("verlet"), std::invalid_argument);
  try {
    parse_integrator_type("verlet");
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "unknown integrator 'verlet' (linearized-backward-euler, implicit-euler, bdf2, "
                 "bdf3, vbd, projective, quasi-newton, xpbd)");
  }
}

}  // namespace
}  // namespace softbody
