// XPBD (seed 004's issue): its constraints are the element laws' energies up to a constant with
// the derivatives they claim; it approaches implicit Euler as its substeps shrink (with mass
// damping, an anchor and a penalty floor); it keeps linear momentum; a sweep is bit-identical for
// any thread count; and it refuses what it cannot solve by name. Its tools (StepInputs):
// fast_solver_tools_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "engine/forces/rest_geometry.h"
#include "engine/sim/xpbd.h"
#include "engine/tests/bar_scene.h"

namespace softbody {
namespace {

using test::max_distance;
using test::run;
using test::soft_material;

constexpr const char* kLaws[] = {"snh", "cnh", "corotational", "stvk-tl"};

// The engine tests' bar (damping, an anchor, a floor) with the plain element law (XPBD takes no
// volumetric term).
std::shared_ptr<SimulationModel> xpbd_bar(const std::string& law, IntegratorType type) {
  auto m = test::bar_model(law, type);
  m->forces = make_force_model(law, m->topology, m->rest, soft_material());
  return m;
}

Mat3 test_gradient(double scale, bool inverted) {
  Mat3 f;
  f << 1.1, 0.2, -0.1, 0.05, 0.9, 0.15, -0.2, 0.1, 1.05;
  f = Mat3::Identity() + scale * (f - Mat3::Identity());
  if (inverted) f.col(2) *= -0.3;
  return f;
}

TEST(XpbdConstraints, TheirEnergyIsTheLawsUpToAConstant) {
  const SimulationModel box =
      test::box_model({3, 2, 2, Vec3(0.03, 0.02, 0.02)}, soft_material(), "", Vec3::Zero());
  const std::vector<TetRestGeometry> geometry =
      compute_rest_geometry(box.rest, box.topology->tets());
  for (const char* law : kLaws) {
    SCOPED_TRACE(law);
    const auto forces = make_force_model(law, box.topology, box.rest, soft_material());
    const XpbdMaterial material = xpbd_material(*forces, soft_material());
    const double at_rest = constraint_energy_density(material, Mat3::Identity());
    for (double amplitude : {0.001, 0.004}) {
      Vec3Array p = box.rest;
      for (size_t i = 0; i < p.size(); ++i)
        p[i] += amplitude * Vec3(std::sin(3.0 * i), std::cos(5.0 * i), std::sin(7.0 * i + 1));
      double constraints = 0;
      for (size_t t = 0; t < geometry.size(); ++t)
        constraints +=
            geometry[t].volume *
            (constraint_energy_density(
                 material, deformation_gradient(p, box.topology->tets()[t], geometry[t])) -
             at_rest);
      const double law_energy = forces->evaluate(p, kEvalEnergy).energy;
      ASSERT_GT(law_energy, 0);
      EXPECT_NEAR(constraints, law_energy, 1e-10 * law_energy);
    }
  }
}

TEST(XpbdConstraints, TheirGradientsAreTheirDerivatives) {
  const SimulationModel box =
      test::box_model({1, 1, 1, Vec3(0.01, 0.01, 0.01)}, soft_material(), "", Vec3::Zero());
  for (const char* law : kLaws) {
    const auto forces = make_force_model(law, box.topology, box.rest, soft_material());
    const XpbdMaterial material = xpbd_material(*forces, soft_material());
    // Inverted gradients for the laws that define their constraints there (the stable and the
    // clamped Neo-Hooke, the corotated with its reflection-free rotation).
    for (bool inverted : {false, true}) {
      if (inverted && material.law == XpbdLaw::kStvk) continue;
      for (double scale : {0.3, 1.0}) {
        SCOPED_TRACE(std::string(law) + (inverted ? " inverted" : "") + " " +
                     std::to_string(scale));
        const Mat3 f = test_gradient(scale, inverted);
        const ElementConstraints c = element_constraints(material, f);
        const double eps = 1e-6;
        for (int k = 0; k < 2; ++k)
          for (int r = 0; r < 3; ++r)
            for (int s = 0; s < 3; ++s) {
              Mat3 plus = f, minus = f;
              plus(r, s) += eps;
              minus(r, s) -= eps;
              const double difference = (element_constraints(material, plus).value[size_t(k)] -
                                         element_constraints(material, minus).value[size_t(k)]) /
                                        (2 * eps);
              EXPECT_NEAR(c.gradient[size_t(k)](r, s), difference, 1e-7);
            }
      }
    }
  }
}

// XPBD with s substeps of one iteration against implicit Euler (Newton) with the same substeps:
// the distance falls with s (Macklin et al.'s "small steps"). Measured: corotational 3.9e-3,
// 7.8e-4, 6.0e-5 m; snh 4.3e-3, 2.4e-4, 1.8e-5 m at 4, 16, 64 substeps. Without Rayleigh beta:
// XPBD damps by the constraints' J^T D J, Newton by K, which differ by the constraints' curvature
// times their multipliers (large for snh's C_D = |F|, sqrt(3) at rest). More iterations at one
// substep do not come as close: the multipliers accumulate along the gradients of earlier
// iterates (docs/solvers.md).
TEST(Xpbd, SmallSubstepsApproachImplicitEuler) {
  const int steps = 10;
  for (const char* law : {"corotational", "snh"}) {
    SCOPED_TRACE(law);
    double previous = 1;
    for (int substeps : {4, 16, 64}) {
      SCOPED_TRACE(substeps);
      auto newton_model = xpbd_bar(law, IntegratorType::kImplicitEuler);
      newton_model->options.substeps = substeps;
      newton_model->options.beta = 0;
      const Vec3Array newton = run(newton_model, steps);
      ASSERT_GT(max_distance(newton, newton_model->rest), 3e-3);
      auto model = xpbd_bar(law, IntegratorType::kXpbd);
      model->options.substeps = substeps;
      model->options.iterations = 1;
      model->options.beta = 0;
      const double error = max_distance(run(model, steps), newton);
      EXPECT_LT(error, 0.5 * previous);
      previous = error;
    }
    EXPECT_LT(previous, 2e-4);  // of a bar bent by ~1 cm
  }
}

// No gravity, no anchors or obstacles: the constraints' forces are internal (their gradients sum
// to zero over a tetrahedron), and so is the beta damping pass. (Angular momentum is not kept
// exactly: like implicit Euler's, each projection turns about the current positions, not x_n.)
TEST(Xpbd, KeepsLinearAndAngularMomentum) {
  for (const char* law : kLaws) {
    SCOPED_TRACE(law);
    auto model = xpbd_bar(law, IntegratorType::kXpbd);
    model->fixed.assign(model->fixed.size(), 0);
    model->anchors.clear();
    model->obstacles.clear();
    model->gravity = Vec3::Zero();
    model->options.alpha = 0;
    model->options.iterations = 5;
    SimulationState state = rest_state(*model);
    for (size_t i = 0; i < state.v.size(); ++i)
      state.v[i] = Vec3(0.3, -0.1, 0.2) + Vec3(1, 2, -1).cross(model->rest[i]) +
                   0.2 * Vec3(std::sin(3.0 * i), std::cos(5.0 * i), std::sin(7.0 * i));
    const Momentum before = momentum(model->mass, state.p, state.v);
    auto integrator = make_integrator(model);
    for (int s = 0; s < 20; ++s) integrator->step(state);
    const Momentum after = momentum(model->mass, state.p, state.v);
    EXPECT_LT((after.linear - before.linear).norm(), 1e-12 * before.linear.norm());
    // ... and it moved and deformed: the check is not of a rigid drift.
    EXPECT_GT(max_distance(state.p, model->rest), 0.02);
  }
}

// A body at rest with nothing acting on it stays at rest: the rest state is every law's
// equilibrium (the Neo-Hookean constraints' C_D = sqrt(3) there is balanced by C_H), so a sweep
// from it moves nothing. For corotational and stvk-tl at any step and iterations; for snh and cnh,
// which carry shear explicitly (xpbd_explicit_shear_gains), with substeps that keep every element's
// gain below 0.5. (At one 30 ms step, gain 146, the bar folds from round-off within a sweep.)
TEST(Xpbd, ABodyAtRestWithNoLoadsStaysAtRest) {
  for (const char* law : kLaws) {
    for (int iterations : {1, 10}) {
      auto model = xpbd_bar(law, IntegratorType::kXpbd);
      model->anchors.clear();
      model->obstacles.clear();
      model->gravity = Vec3::Zero();
      model->options.dt = 0.03;
      model->options.iterations = iterations;
      const std::vector<double> gains = xpbd_explicit_shear_gains(*model, model->options.dt);
      const double largest = *std::max_element(gains.begin(), gains.end());
      const bool neo_hookean = std::string(law) == "snh" || std::string(law) == "cnh";
      EXPECT_EQ(largest > 0, neo_hookean) << law;
      model->options.substeps = static_cast<int>(std::ceil(std::sqrt(largest / 0.5)));
      SCOPED_TRACE(std::string(law) + ", " + std::to_string(iterations) + " iterations, " +
                   std::to_string(model->options.substeps) + " substeps");
      if (neo_hookean) {
        EXPECT_GT(model->options.substeps, 10);  // the gain is of the bar's size: 146 at 30 ms
        EXPECT_LT(model->options.substeps, 30);
      }
      SimulationState state = rest_state(*model);
      auto integrator = make_integrator(model);
      for (int s = 0; s < 3; ++s) integrator->step(state);
      EXPECT_LT(max_distance(state.p, model->rest), 1e-9);
    }
  }
}

TEST(Xpbd, SweepsAreBitIdenticalOnOneAndTwoThreads) {
  // Large enough for colours of more than 256 tetrahedra (those are projected in parallel).
  auto model = std::make_shared<SimulationModel>(test::box_model(
      {16, 8, 8, Vec3(0.16, 0.08, 0.08)}, soft_material(), "xmin", Vec3(0, -9.81, 0)));
  model->forces = make_force_model("snh", model->topology, model->rest, soft_material());
  model->options.type = IntegratorType::kXpbd;
  model->options.iterations = 3;
  model->options.beta = 0.01;
  const auto [one, two] = test::run_on_one_and_two_threads(model, 3);
  EXPECT_EQ(one, two);
  EXPECT_GT(max_distance(one, model->rest), 1e-4);
}

TEST(Xpbd, RefusesWhatItCannotSolveByName) {
  const SimulationModel box =
      test::box_model({2, 1, 1, Vec3(0.02, 0.01, 0.01)}, soft_material(), "xmin", Vec3::Zero());
  auto refused = [&](std::shared_ptr<const ForceModel> forces) {
    auto model = std::make_shared<SimulationModel>(box);
    model->forces = std::move(forces);
    model->options.type = IntegratorType::kXpbd;
    try {
      make_integrator(model);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  for (const char* law : {"neo-hookean", "snh-smith", "mooney-rivlin", "stvk-edge"}) {
    SCOPED_TRACE(law);
    const std::string message =
        refused(make_force_model(law, box.topology, box.rest, soft_material()));
    EXPECT_NE(message.find("'xpbd'"), std::string::npos) << message;
    EXPECT_NE(message.find(law), std::string::npos) << message;
    EXPECT_NE(message.find("snh, cnh, corotational, stvk-tl"), std::string::npos) << message;
  }
  // A volumetric term changes the energy the constraints stand for.
  EXPECT_NE(refused(make_force_model("snh", box.topology, box.rest, soft_material(),
                                     VolumetricKind::kCubic))
                .find("volumetric term"),
            std::string::npos);
}

}  // namespace
}  // namespace softbody
