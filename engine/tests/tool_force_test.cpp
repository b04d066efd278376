// The tool force models of haptics against finite differences (issue 22): the penalty poke's
// dF/dx and dF/dv (engine/sim/tool_force.h), the grab spring's, and constraint contact's stiffness
// on an obstacle, -N W_NN^-1 N^T (ContactResult::obstacle_stiffness), and its contact problem
// re-solved (codec/tool_contact.h), against the forces of steps with the obstacle moved.
#include <gtest/gtest.h>

#include <random>

#include "engine/mesh/box_generator.h"
#include "engine/sim/integrator.h"
#include "engine/sim/tool_force.h"
#include "engine/tests/box_models.h"

namespace softbody {
namespace {

// Central differences of f(x) (3 -> 3) along each axis.
template <typename F>
Mat3 jacobian_by_differences(F f, const Vec3& x, double h) {
  Mat3 j;
  for (int c = 0; c < 3; ++c) {
    const Vec3 e = h * Vec3::Unit(c);
    j.col(c) = (f(x + e) - f(x - e)) / (2 * h);
  }
  return j;
}

// The constraint tools' body: a 4 x 2 x 4 cm slab (5e4 Pa), its base held, no gravity, 10 ms steps.
std::shared_ptr<const SimulationModel> held_slab() {
  SimulationModel m = test::box_model({.nx = 6, .ny = 3, .nz = 6, .size = Vec3(0.04, 0.02, 0.04)},
                                      {5e4, 0.3, 1000}, "ymin", Vec3::Zero());
  m.options.dt = 0.01;
  return std::make_shared<const SimulationModel>(m);
}

// One step of `model` from `s` (which becomes the state after it) with a constraint-contact
// sphere of `radius` held at `centre`, looking `reach` beyond the contact margin.
StepStats step_with_sphere(const std::shared_ptr<const SimulationModel>& model, SimulationState& s,
                           const Vec3& centre, double radius, double reach = 0) {
  Obstacle tool;
  tool.shape = ObstacleShape::kSphere;
  tool.radius = radius;
  tool.trajectory = make_constant_trajectory(centre);
  tool.contact.model = ContactModel::kConstraint;
  tool.contact.reach = reach;
  StepInputs inputs;
  inputs.obstacles.push_back(tool);
  return make_integrator(model)->step(s, inputs);
}

// The force on the tool at `centre` from a copy of its contact problem, re-solved there.
Vec3 resolved_force(codec::ToolContactModel problem, const Vec3& centre) {
  const std::array<double, 3> force =
      codec::evaluate(problem, {centre.x(), centre.y(), centre.z()});
  return Vec3(force[0], force[1], force[2]);
}

TEST(ToolForce, PokeAndGrabJacobiansMatchFiniteDifferences) {
  std::mt19937 random(3);
  std::uniform_real_distribution<double> unit(-1, 1);
  // Vertices a few millimetres inside a 1 cm tool (every one in contact, none within h of the
  // surface: the contact set holds across the differences).
  Vec3Array p, v;
  for (int i = 0; i < 12; ++i) {
    Vec3 d(unit(random), unit(random), unit(random));
    d.normalize();
    p.push_back(d * (0.01 - 0.002 - 0.002 * std::abs(unit(random))));
    v.push_back(Vec3(unit(random), unit(random), unit(random)) * 0.1);
  }
  for (ObstacleShape shape : {ObstacleShape::kSphere, ObstacleShape::kCapsule}) {
    Obstacle tool;
    tool.shape = shape;
    tool.radius = 0.01;
    tool.half_length = shape == ObstacleShape::kCapsule ? 0.004 : 0;
    tool.axis = Vec3(1, 2, 0.5).normalized();
    tool.contact = {.stiffness = 2e4, .damping = 50, .friction = 1e4};
    const Vec3 centre(0.0003, -0.0002, 0.0001), velocity(0.02, -0.05, 0.01);
    const ToolForce at = poke_force(tool, centre, velocity, p, v, {});
    ASSERT_EQ(at.contacts, 12);
    const Mat3 dx = jacobian_by_differences(
        [&](const Vec3& c) { return poke_force(tool, c, velocity, p, v, {}).force; }, centre, 1e-7);
    const Mat3 dv = jacobian_by_differences(
        [&](const Vec3& u) { return poke_force(tool, centre, u, p, v, {}).force; }, velocity, 1e-6);
    EXPECT_LT((dx - at.dforce_dx).norm(), 1e-6 * at.dforce_dx.norm()) << static_cast<int>(shape);
    EXPECT_LT((dv - at.dforce_dv).norm(), 1e-6 * at.dforce_dv.norm()) << static_cast<int>(shape);
  }
  const ToolForce grab = grab_force(3, 200, 2, Vec3(0.01, 0, 0), Vec3(0, 0.1, 0), p, v);
  const Mat3 gx = jacobian_by_differences(
      [&](const Vec3& x) { return grab_force(3, 200, 2, x, Vec3(0, 0.1, 0), p, v).force; },
      Vec3(0.01, 0, 0), 1e-6);
  EXPECT_LT((gx - grab.dforce_dx).norm(), 1e-8 * grab.dforce_dx.norm());
}

// Constraint contact: moving the obstacle along its contact's normal by +-h changes only the free
// gap (the contact point, the projection of the centre on the face, stays), so with the active set
// held (no friction) the step's force on the obstacle is linear in that motion with exactly the
// stiffness the stage reports. Moving it sideways also slides the contact point over the surface
// (J changes): that part of the force's change (here dFy/dz = 121 N/m beside dFy/dy = -826 N/m) is
// outside the model, which holds its contacts.
TEST(ToolForce, ConstraintContactStiffnessAndProblemMatchSteps) {
  const auto model = held_slab();
  const SimulationState start = rest_state(*model);
  // A sphere 1 mm into the top, off the vertices.
  const Vec3 centre(0.017, 0.02 + 0.006 - 0.001, 0.021);
  codec::ToolContactModel contact_model;
  auto step_with_tool_at = [&](const Vec3& c, Mat3* stiffness) {
    SimulationState s = start;
    const StepStats stats = step_with_sphere(model, s, c, 0.006);
    if (stiffness) {
      *stiffness = stats.obstacle_stiffness.at(0);
      contact_model = stats.obstacle_models.at(0);
    }
    EXPECT_GT(stats.obstacle_contacts.at(0), 0);
    return stats.obstacle_forces.at(0);
  };
  Mat3 k;
  const Vec3 f = step_with_tool_at(centre, &k);
  EXPECT_GT(f.y(), 0);  // pushed out of the body
  const Mat3 differences = jacobian_by_differences(
      [&](const Vec3& c) { return step_with_tool_at(c, nullptr); }, centre, 1e-7);
  // The contact is straight below the centre: its normal is y.
  EXPECT_LT((differences.col(1) - k.col(1)).norm(), 1e-6 * k.norm()) << "K\n"
                                                                     << k << "\nFD\n"
                                                                     << differences;
  EXPECT_LT(k(1, 1), 0);

  // The tool's contact problem (haptic re-solves): at the stepped position it gives the step's
  // force; 0.3 mm deeper, the force of a step with the tool there; 3 mm above, none.
  auto model_force = [&](const Vec3& c) { return resolved_force(contact_model, c); };
  EXPECT_LT((model_force(centre) - f).norm(), 1e-6 * f.norm());
  const Vec3 deeper = centre - Vec3(0, 3e-4, 0);
  const Vec3 stepped = step_with_tool_at(deeper, nullptr);
  EXPECT_LT((model_force(deeper) - stepped).norm(), 1e-6 * stepped.norm())
      << model_force(deeper).transpose() << " vs " << stepped.transpose();
  EXPECT_GT(stepped.y(), f.y());
  EXPECT_EQ(model_force(centre + Vec3(0, 3e-3, 0)), Vec3::Zero());
}

// A haptic client re-solves the tool's contact problem for newer poses until the next reply, a
// round trip later: on a slow link the tool reaches surface that was beyond the contact margin when
// the step ran. Without candidates there the problem holds nothing and the pen sinks into the
// body (the next reply then pushes it out with energy the hand never put in); with
// `contact.reach` the step takes that surface as candidates, which stay apart (the body moves as
// without them) and give the re-solve the force a step with the tool there gives.
TEST(ToolForce, ACandidateReachPutsSurfaceTheToolWillReachInItsContactProblem) {
  const auto model = held_slab();
  const SimulationState start = rest_state(*model);
  const double radius = 0.006;
  // 4 mm above the top (the margin is 1 % of the 60 mm diagonal), over a face's interior.
  const Vec3 above(0.017, 0.02 + radius + 0.004, 0.021);
  const Vec3 pressed = above - Vec3(0, 0.005, 0);  // 1 mm into the top
  struct Stepped {
    Vec3 force;
    codec::ToolContactModel problem;
    Vec3Array p;
  };
  auto step_with_tool_at = [&](const Vec3& c, double reach) {
    SimulationState s = start;
    const StepStats stats = step_with_sphere(model, s, c, radius, reach);
    EXPECT_FALSE(stats.failed);
    return Stepped{stats.obstacle_forces.at(0), stats.obstacle_models.at(0), s.p};
  };
  const Stepped narrow = step_with_tool_at(above, 0);
  const Stepped wide = step_with_tool_at(above, 0.006);
  const Stepped there = step_with_tool_at(pressed, 0);
  ASSERT_GT(there.force.y(), 0.05) << "1 mm into a 5e4 Pa block pushes the tool out";
  EXPECT_EQ(narrow.force, Vec3::Zero());
  EXPECT_EQ(wide.force, Vec3::Zero());
  EXPECT_TRUE(narrow.problem.empty()) << "nothing within the margin";
  ASSERT_FALSE(wide.problem.empty());
  EXPECT_EQ(resolved_force(narrow.problem, pressed), Vec3::Zero()) << "the pen would sink";
  // The face below holds the re-solve's tool out with the force of a step with the tool there;
  // the slanted candidates beside it (edges and vertices of the neighbouring faces) stay apart.
  const Vec3 resolved = resolved_force(wide.problem, pressed);
  EXPECT_LT((resolved - there.force).norm(), 1e-6 * there.force.norm())
      << resolved.transpose() << " vs " << there.force.transpose();
  // Apart, the candidates move nothing.
  for (size_t v = 0; v < narrow.p.size(); ++v)
    EXPECT_LT((wide.p[v] - narrow.p[v]).norm(), 1e-15) << "vertex " << v;
}

}  // namespace
}  // namespace softbody
