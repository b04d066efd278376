#include "engine/sim/external_forces.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "engine/tests/surface_shapes.h"

namespace softbody {
namespace {

// Central differences of the force with respect to p and v.
void expect_exact_jacobians(const Obstacle& o, const Vec3& centre, const Vec3& surface_velocity,
                            const Vec3& p, const Vec3& v) {
  Vec3 f;
  Mat3 dp, dv;
  ASSERT_TRUE(contact_force(o, centre, surface_velocity, p, v, f, dp, dv));
  const double h = 1e-7;
  for (int k = 0; k < 3; ++k) {
    Vec3 e = Vec3::Zero();
    e[k] = h;
    Vec3 fp, fm;
    Mat3 a, b;
    contact_force(o, centre, surface_velocity, p + e, v, fp, a, b);
    contact_force(o, centre, surface_velocity, p - e, v, fm, a, b);
    EXPECT_LT(((fp - fm) / (2 * h) - dp.col(k)).norm(), 1e-6 * (dp.norm() + 1))
        << "d/dp column " << k;
    contact_force(o, centre, surface_velocity, p, v + e, fp, a, b);
    contact_force(o, centre, surface_velocity, p, v - e, fm, a, b);
    EXPECT_LT(((fp - fm) / (2 * h) - dv.col(k)).norm(), 1e-6 * (dv.norm() + 1))
        << "d/dv column " << k;
  }
}

Obstacle with_contact(Obstacle o) {
  o.contact = {.stiffness = 1e6, .damping = 1e4, .friction = 1e7};
  return o;
}

TEST(Contact, JacobiansOfEveryShapeMatchFiniteDifferences) {
  const Vec3 centre(0.1, 0.2, -0.1), surface_velocity(0.3, -0.2, 0.1), v(0.5, 0.7, -0.4);
  Obstacle plane =
      with_contact({.shape = ObstacleShape::kHalfSpace, .normal = Vec3(0.2, 1, 0.1).normalized()});
  expect_exact_jacobians(plane, centre, surface_velocity, centre + Vec3(0.01, -0.02, 0.02), v);
  Obstacle plate = plane;
  plate.shape = ObstacleShape::kPlate;
  plate.half_extent = {0.5, 0.5};
  expect_exact_jacobians(plate, centre, surface_velocity, centre + Vec3(0.01, -0.02, 0.02), v);
  Obstacle sphere = with_contact({.shape = ObstacleShape::kSphere, .radius = 0.05});
  expect_exact_jacobians(sphere, centre, surface_velocity, centre + Vec3(0.02, 0.03, -0.01), v);
  Obstacle capsule = with_contact({.shape = ObstacleShape::kCapsule,
                                   .axis = Vec3(1, 1, 0).normalized(),
                                   .radius = 0.04,
                                   .half_length = 0.1});
  expect_exact_jacobians(capsule, centre, surface_velocity, centre + Vec3(0.05, 0.02, 0.03),
                         v);  // side
  expect_exact_jacobians(capsule, centre, surface_velocity, centre + Vec3(0.09, 0.08, 0.01),
                         v);  // end cap
}

// A mesh obstacle's force comes from the distance to its closest face, edge or vertex; turned and
// non-convex (inside a torus's tube the closest feature is often an edge or a vertex).
TEST(Contact, JacobiansOfAMeshObstacleMatchFiniteDifferences) {
  const Vec3 centre(0.1, 0.2, -0.1), surface_velocity(0.3, -0.2, 0.1), v(0.5, 0.7, -0.4);
  Obstacle ring = with_contact({.shape = ObstacleShape::kMesh});
  ring.surface = std::make_shared<const RigidSurface>(test::torus(0.03, 0.01, 12, 8));
  ring.rotation = Eigen::AngleAxisd(0.4, Vec3(1, 2, 3).normalized()).toRotationMatrix();
  int edges_or_vertices = 0;
  for (int i = 0; i < 40; ++i) {
    // Inside the tube, around it and along it (off the mesh's grid lines, where the nearest
    // feature, and so the force's direction, jumps); every other point near the tube's side
    // facing the hole, whose creases are concave (there an edge or a vertex is nearest).
    const double u = 0.1 + 0.37 * i,
                 w = i % 2 ? 0.05 + 1.3 * i : std::numbers::pi + 0.6 * std::sin(1.7 * i + 0.3),
                 depth = 0.003 + 0.0003 * (i % 7);
    const Vec3 local((0.03 + (0.01 - depth) * std::cos(w)) * std::cos(u),
                     (0.01 - depth) * std::sin(w),
                     (0.03 + (0.01 - depth) * std::cos(w)) * std::sin(u));
    const Vec3 p = centre + ring.rotation * local;
    const RigidSurface::Closest c = ring.surface->closest(local);
    ASSERT_LT(c.distance, 0);
    edges_or_vertices += (c.weights[0] == 0) + (c.weights[1] == 0) + (c.weights[2] == 0) > 0;
    SCOPED_TRACE(i);
    expect_exact_jacobians(ring, centre, surface_velocity, p, v);
  }
  EXPECT_GE(edges_or_vertices, 3);
}

TEST(Contact, PushesOutAndResistsSliding) {
  Obstacle floor = with_contact({.shape = ObstacleShape::kHalfSpace, .normal = Vec3::UnitY()});
  Vec3 f;
  Mat3 dp, dv;
  // 1 mm deep, at rest: K_N * depth upward.
  ASSERT_TRUE(
      contact_force(floor, Vec3::Zero(), Vec3::Zero(), Vec3(0, -1e-3, 0), Vec3::Zero(), f, dp, dv));
  EXPECT_NEAR(f.y(), 1e6 * 1e-3, 1e-9);
  EXPECT_NEAR(f.x(), 0, 1e-12);
  // Sliding along +x: friction C_T * depth * speed against the motion.
  contact_force(floor, Vec3::Zero(), Vec3::Zero(), Vec3(0, -1e-3, 0), Vec3(0.2, 0, 0), f, dp, dv);
  EXPECT_NEAR(f.x(), -1e7 * 1e-3 * 0.2, 1e-9);
  // Above the surface: nothing.
  EXPECT_FALSE(
      contact_force(floor, Vec3::Zero(), Vec3::Zero(), Vec3(0, 1e-3, 0), Vec3::Zero(), f, dp, dv));
  EXPECT_EQ(f, Vec3::Zero());
  EXPECT_TRUE(dp.isZero(0) && dv.isZero(0));  // decided before the automatic derivatives
  // A plate acts only within its extent.
  Obstacle plate = floor;
  plate.shape = ObstacleShape::kPlate;
  plate.half_extent = {0.1, 0.1};
  EXPECT_TRUE(contact_force(plate, Vec3::Zero(), Vec3::Zero(), Vec3(0.05, -1e-3, 0.05),
                            Vec3::Zero(), f, dp, dv));
  EXPECT_FALSE(contact_force(plate, Vec3::Zero(), Vec3::Zero(), Vec3(0.2, -1e-3, 0.05),
                             Vec3::Zero(), f, dp, dv));
}

// A turning plate's extent turns with it: a long jaw spun a quarter turn about its normal is long
// along the other axis (it used to keep the unturned normal's own orthogonal directions).
TEST(Contact, ATurningPlatesExtentTurnsWithIt) {
  Obstacle jaw = with_contact({.shape = ObstacleShape::kPlate, .normal = Vec3::UnitY()});
  jaw.half_extent = {0.1, 0.01};
  jaw.spin = Vec3(0, M_PI / 2, 0);
  jaw.trajectory = make_constant_trajectory(Vec3::Zero());
  const auto [u0, w0] = plate_axes(jaw);
  EXPECT_TRUE(obstacle_moves(jaw));
  const Obstacle turned = posed_at(jaw, 1.0);
  const auto [u, w] = plate_axes(turned);
  const Mat3 r = obstacle_rotation(jaw, 1.0);
  EXPECT_LT((u - r * u0).norm(), 1e-15);
  EXPECT_LT((w - r * w0).norm(), 1e-15);
  double d = 0;
  Vec3 n;
  const Vec3 along_long = 0.05 * u - 1e-3 * Vec3::UnitY(),
             along_short = 0.05 * w - 1e-3 * Vec3::UnitY();
  EXPECT_TRUE(surface_distance(turned, Vec3::Zero(), along_long, d, n));
  EXPECT_FALSE(surface_distance(turned, Vec3::Zero(), along_short, d, n));
  // Before turning, the long axis was the other one.
  EXPECT_LT(std::abs(u0.dot(u)), 1e-12);
  // A still plate does not move; its axes are the normal's own orthogonal ones.
  Obstacle still = jaw;
  still.spin = Vec3::Zero();
  EXPECT_FALSE(obstacle_moves(still));
  EXPECT_EQ(plate_axes(still).first, Vec3::UnitY().unitOrthogonal());
}

TEST(ExternalForces, AnchorGravityAndExpansionVelocity) {
  const std::vector<double> mass = {2.0, 3.0};
  Vec3Array p = {Vec3(0, -0.01, 0), Vec3(1, 1, 1)};
  Anchor anchor{
      1, make_keyframe_trajectory({{0, Vec3(1, 1, 1)}, {1, Vec3(2, 1, 1)}}, Interpolation::kLinear),
      100, 5};
  Obstacle floor = with_contact({.shape = ObstacleShape::kHalfSpace, .normal = Vec3::UnitY()});
  floor.trajectory = make_formula_trajectory({{0, 10, {"0.5*t", "0", "0"}}}, 1.0);
  ExternalForceOutput out;
  evaluate_external_forces(std::vector<Anchor>{anchor}, std::vector<Obstacle>{floor}, mass,
                           Vec3(0, -10, 0), p, 0.5, out);
  EXPECT_EQ(out.contacts, 1);
  EXPECT_LT((out.phi[0] - Vec3(0.5, 0, 0)).norm(), 1e-6);  // the floor's velocity
  EXPECT_NEAR(out.h[0].y(), 2.0 * -10 + 1e6 * 0.01, 1e-6);
  // Anchor at t = 0.5 is at (1.5, 1, 1) moving at (1, 0, 0); the vertex at (1,1,1) is at rest.
  EXPECT_LT((out.h[1] - (Vec3(0, -30, 0) + 100 * Vec3(0.5, 0, 0) + 5 * Vec3(1, 0, 0))).norm(),
            1e-9);
  EXPECT_EQ(out.k_h[1], Mat3(-100 * Mat3::Identity()));
  EXPECT_EQ(out.b_h[1], Mat3(-5 * Mat3::Identity()));
}

TEST(Trajectory, FormulasKeyframesAndErrors) {
  auto plate = make_formula_trajectory(
      {{0, 1, {"0", "20 + 300*(1-t)", "0"}},
       {1, 6, {"100*sin(2*pi*(t-1)/1.3)", "max(0, 20 - 100*sin(2*pi*(t-1)))", "0"}}},
      1e-3);
  EXPECT_NEAR(plate->position(0).y(), 0.32, 1e-12);
  EXPECT_NEAR(plate->position(0.5).y(), 0.17, 1e-12);
  EXPECT_NEAR(plate->velocity(0.5).y(), -0.3, 1e-6);
  EXPECT_NEAR(plate->position(1.25).y(), 0.0, 1e-12);  // 20 - 100 sin(pi/2) < 0 -> clamped at 0
  EXPECT_NEAR(plate->position(100).x(), 0.1 * std::sin(2 * M_PI * 5 / 1.3),
              1e-12);  // held at the end
  auto cubic = make_keyframe_trajectory({{0, Vec3::Zero()}, {1, Vec3(1, 0, 0)}, {2, Vec3(1, 1, 0)}},
                                        Interpolation::kCubic);
  EXPECT_LT((cubic->position(1) - Vec3(1, 0, 0)).norm(), 1e-12);  // interpolates the keys
  const double h = 1e-6;
  EXPECT_LT(((cubic->position(1.3 + h) - cubic->position(1.3 - h)) / (2 * h) - cubic->velocity(1.3))
                .norm(),
            1e-6);
  try {
    make_formula_trajectory({{0, 1, {"0", "2*(t", "0"}}}, 1.0);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("2*(t"), std::string::npos) << e.what();
  }
  EXPECT_THROW(make_formula_trajectory({{0, 1, {"0", "banana*t", "0"}}}, 1.0),
               std::invalid_argument);
  EXPECT_THROW(
      make_keyframe_trajectory({{1, Vec3::Zero()}, {0, Vec3::Zero()}}, Interpolation::kLinear),
      std::invalid_argument);
}

}  // namespace
}  // namespace softbody
