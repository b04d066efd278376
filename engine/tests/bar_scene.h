// The engine tests' bent bar for the fixed-iteration solvers (vbd, projective, quasi-newton): a
// 4 x 2 x 2 cm bar clamped at x = 0, bent by gravity, with Rayleigh damping, an anchor pulling its
// tip sideways and a penalty floor under it; converged, every such solver is the Newton
// integrator's implicit Euler on it.
#pragma once

#include <gtest/gtest.h>

#include "engine/parallel/parallel.h"
#include "engine/sim/integrator.h"
#include "engine/sim/trajectory.h"
#include "engine/tests/box_models.h"

namespace softbody::test {

inline Material soft_material() {
  Material m;
  m.youngs_modulus = 2e4;
  m.poisson_ratio = 0.4;
  m.density = 1000;
  return m;
}

// A 4 x 2 x 2 cm bar clamped at x = 0, bent by gravity, with damping, an anchor pulling its tip
// sideways and a floor under it.
inline std::shared_ptr<SimulationModel> bar_model(const std::string& law, IntegratorType type) {
  auto m = std::make_shared<SimulationModel>(test::box_model(
      {4, 2, 2, Vec3(0.04, 0.02, 0.02)}, soft_material(), "xmin", Vec3(0, -9.81, 0)));
  const TetMesh mesh = make_box_mesh({4, 2, 2, Vec3(0.04, 0.02, 0.02)});
  m->forces = make_force_model(law, m->topology, m->rest, soft_material(), VolumetricKind::kCubic);
  m->options.type = type;
  m->options.dt = 0.01;
  m->options.alpha = 0.5;
  m->options.beta = 0.002;
  m->options.newton.tolerance = 1e-12;
  m->options.newton.max_iterations = 100;
  m->options.solver.type = SolverType::kDirect;
  m->options.solver.tolerance = 1e-12;
  m->anchors.push_back(
      {mesh.vertex_sets.at("xmax").front(),
       make_constant_trajectory(m->rest[static_cast<size_t>(mesh.vertex_sets.at("xmax").front())] +
                                Vec3(0, 0, 0.01)),
       50.0, 0.1});
  Obstacle floor;
  floor.shape = ObstacleShape::kHalfSpace;
  floor.normal = Vec3::UnitY();
  floor.trajectory = make_constant_trajectory(Vec3(0, -0.004, 0));
  floor.contact.stiffness = 1e4;
  floor.contact.damping = 0;
  floor.contact.friction = 0;
  m->obstacles.push_back(floor);
  return m;
}

inline Vec3Array run(std::shared_ptr<SimulationModel> model, int steps) {
  SimulationState state = rest_state(*model);
  auto integrator = make_integrator(model);
  for (int s = 0; s < steps; ++s) {
    const StepStats stats = integrator->step(state);
    EXPECT_FALSE(stats.failed);
    EXPECT_EQ(stats.rolled_back, 0);
  }
  return state.p;
}

inline double max_distance(const Vec3Array& a, const Vec3Array& b) {
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, (a[i] - b[i]).norm());
  return d;
}

// The positions after `steps` steps on one thread and on two, every loop of the two-thread run in
// parallel however short (the thread count and loop threshold restored to the defaults after).
inline std::pair<Vec3Array, Vec3Array> run_on_one_and_two_threads(
    std::shared_ptr<SimulationModel> model, int steps) {
  set_num_threads(1);
  Vec3Array one = run(model, steps);
  set_num_threads(2);
  Vec3Array two;
  {
    EveryLoopParallel every_loop;
    two = run(model, steps);
  }
  set_num_threads(0);
  return {std::move(one), std::move(two)};
}

// The distance to Newton's implicit Euler after 5 steps of the bar with `law` and a
// fixed-iteration solver at `iterations`, plain and with Chebyshev acceleration (rho = 0.9).
struct ChebyshevErrors {
  double plain, accelerated;
};
inline ChebyshevErrors chebyshev_errors(const std::string& law, IntegratorType type,
                                        int iterations) {
  const Vec3Array newton = run(bar_model(law, IntegratorType::kImplicitEuler), 5);
  ChebyshevErrors errors{};
  for (double rho : {0.0, 0.9}) {
    auto model = bar_model(law, type);
    model->options.iterations = iterations;
    model->options.chebyshev = rho;
    (rho > 0 ? errors.accelerated : errors.plain) = max_distance(run(model, 5), newton);
  }
  return errors;
}

}  // namespace softbody::test
