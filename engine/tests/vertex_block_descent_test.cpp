// Vertex Block Descent (engine/sim/vertex_block_descent.h): the per-element form it runs on sums to
// the models' own forces and stiffness; converged, VBD is implicit Euler (the Newton integrator's
// answer) with Rayleigh damping, an anchor and a penalty floor; more sweeps bring it closer; a
// sweep is bit-identical for any thread count; a model without a per-element energy is refused by
// name.
#include <gtest/gtest.h>

#include "engine/forces/element_assembly.h"
#include "engine/parallel/parallel.h"
#include "engine/sim/integrator.h"
#include "engine/sim/trajectory.h"
#include "engine/sim/vertex_block_descent.h"
#include "engine/tests/box_models.h"

namespace softbody {
namespace {

Material soft_material() {
  Material m;
  m.youngs_modulus = 2e4;
  m.poisson_ratio = 0.4;
  m.density = 1000;
  return m;
}

// A 4 x 2 x 2 cm bar clamped at x = 0, bent by gravity, with damping, an anchor pulling its tip
// sideways and a floor under it.
std::shared_ptr<SimulationModel> bar_model(const std::string& law, IntegratorType type) {
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

Vec3Array run(std::shared_ptr<SimulationModel> model, int steps) {
  SimulationState state = rest_state(*model);
  auto integrator = make_integrator(model);
  for (int s = 0; s < steps; ++s) {
    const StepStats stats = integrator->step(state);
    EXPECT_FALSE(stats.failed);
    EXPECT_EQ(stats.rolled_back, 0);
  }
  return state.p;
}

double max_distance(const Vec3Array& a, const Vec3Array& b) {
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, (a[i] - b[i]).norm());
  return d;
}

TEST(VertexBlockDescent, ElementFormsSumToTheModelsForcesAndStiffness) {
  const SimulationModel base =
      test::box_model({2, 2, 1, Vec3(0.02, 0.02, 0.01)}, soft_material(), "", Vec3::Zero());
  Vec3Array p = base.rest;
  for (size_t i = 0; i < p.size(); ++i)
    p[i] += 0.002 * Vec3(std::sin(3.0 * i), std::cos(5.0 * i), std::sin(7.0 * i + 1));
  for (const char* law :
       {"stvk-tl", "corotational", "neo-hookean", "hybrid", "snh", "snh-smith", "cnh"}) {
    SCOPED_TRACE(law);
    const auto model = make_force_model(law, base.topology, base.rest, soft_material(),
                                        VolumetricKind::kQuadratic);
    ASSERT_TRUE(model->element_form());
    const ForceOutput whole = model->evaluate(p, kEvalAll);
    ForceOutput sum;
    prepare_force_output(*base.topology, kEvalAll, sum);
    for (Index t = 0; t < base.topology->num_tets(); ++t) {
      ElementContribution c = ElementContribution::zero();
      model->add_element(p, t, kEvalAll, c);
      sum.energy += c.energy;
      scatter_element(*base.topology, t, kEvalForces | kEvalStiffness, c, sum);
      // One vertex's block alone is the same block.
      for (int k = 0; k < 4; ++k) {
        ElementContribution one = ElementContribution::zero(k);
        model->add_element(p, t, kEvalForces | kEvalStiffness | kEvalOneVertex, one);
        EXPECT_LT(
            (one.diagonal[static_cast<size_t>(k)] - c.diagonal[static_cast<size_t>(k)]).norm(),
            1e-12 * (1 + c.diagonal[static_cast<size_t>(k)].norm()));
        EXPECT_LT((one.f[static_cast<size_t>(k)] - c.f[static_cast<size_t>(k)]).norm(),
                  1e-12 * (1 + c.f[static_cast<size_t>(k)].norm()));
      }
    }
    EXPECT_NEAR(sum.energy, whole.energy, 1e-12 * std::abs(whole.energy));
    EXPECT_LT(relative_difference(sum.f, whole.f), 1e-12);
    EXPECT_LT(relative_difference(sum.K, whole.K), 1e-12);
  }
}

TEST(VertexBlockDescent, ConvergedItIsImplicitEuler) {
  const int steps = 10;
  const Vec3Array newton = run(bar_model("stvk-tl", IntegratorType::kImplicitEuler), steps);
  const Vec3Array start = bar_model("stvk-tl", IntegratorType::kVbd)->rest;
  const double moved = max_distance(newton, start);
  ASSERT_GT(moved, 1e-3);  // the bar bends, is pulled and meets the floor
  double previous = moved;
  for (int sweeps : {10, 100, 3000}) {
    SCOPED_TRACE(sweeps);
    auto model = bar_model("stvk-tl", IntegratorType::kVbd);
    model->options.iterations = sweeps;
    const double error = max_distance(run(model, steps), newton);
    EXPECT_LT(error, previous);  // more sweeps, closer
    previous = error;
  }
  EXPECT_LT(previous, 1e-6);  // converged: within 1 um of Newton's
}

TEST(VertexBlockDescent, ChebyshevAccelerationConvergesFaster) {
  const Vec3Array newton = run(bar_model("corotational", IntegratorType::kImplicitEuler), 5);
  auto plain = bar_model("corotational", IntegratorType::kVbd);
  plain->options.iterations = 40;
  auto accelerated = bar_model("corotational", IntegratorType::kVbd);
  accelerated->options.iterations = 40;
  accelerated->options.chebyshev = 0.9;
  const double with = max_distance(run(accelerated, 5), newton);
  const double without = max_distance(run(plain, 5), newton);
  EXPECT_LT(with, 0.5 * without);  // measured: 2.9e-4 against 9.4e-4 m
}

TEST(VertexBlockDescent, SweepsAreBitIdenticalForAnyThreadCount) {
  auto model = bar_model("neo-hookean", IntegratorType::kVbd);
  model->options.iterations = 15;
  set_num_threads(1);
  const Vec3Array one = run(model, 5);
  set_num_threads(2);
  const Vec3Array two = run(model, 5);
  set_num_threads(0);
  EXPECT_EQ(one, two);
}

TEST(VertexBlockDescent, ModelsWithoutAnElementEnergyAreRefusedByName) {
  auto model = bar_model("stvk-tl", IntegratorType::kVbd);
  model->forces = make_force_model("stvk-edge", model->topology, model->rest, soft_material());
  try {
    make_integrator(model);
    FAIL() << "stvk-edge accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'stvk-edge'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace softbody
