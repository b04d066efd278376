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
#include "engine/tests/bar_scene.h"

namespace softbody {
namespace {

using test::bar_model;
using test::max_distance;
using test::run;
using test::soft_material;

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
  const test::ChebyshevErrors errors =
      test::chebyshev_errors("corotational", IntegratorType::kVbd, 40);
  EXPECT_LT(errors.accelerated, 0.5 * errors.plain);  // measured: 2.9e-4 against 9.4e-4 m
}

TEST(VertexBlockDescent, SweepsAreBitIdenticalForAnyThreadCount) {
  auto model = bar_model("neo-hookean", IntegratorType::kVbd);
  model->options.iterations = 15;
  const auto [one, two] = test::run_on_one_and_two_threads(model, 5);
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
