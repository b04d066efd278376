// Mesh obstacles (engine/contact/rigid_surface.h, issue 22): the signed distance of a closed
// triangle surface against closed forms (a box exactly, a sphere and a torus to their
// tessellation's sag), the sign inside a non-convex surface's hole, and the faults that make a
// surface unusable named.
#include "engine/contact/rigid_surface.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include "engine/tests/surface_shapes.h"

namespace softbody {
namespace {

// The exact signed distance of the box |x_i| <= half_i and its gradient.
double box_distance(const Vec3& half, const Vec3& p, Vec3& gradient) {
  const Vec3 q = p.cwiseAbs() - half;
  const Vec3 sign = p.unaryExpr([](double v) { return v < 0 ? -1.0 : 1.0; });
  if (q.maxCoeff() > 0) {
    const Vec3 outside = q.cwiseMax(0.0);
    gradient = sign.cwiseProduct(outside).normalized();
    return outside.norm();
  }
  int axis = 0;
  q.maxCoeff(&axis);
  gradient = Vec3::Zero();
  gradient[axis] = sign[axis];
  return q[axis];
}

TEST(RigidSurface, ABoxsSignedDistanceAndNormalAreExactEverywhere) {
  const Vec3 half(0.02, 0.01, 0.015);
  const RigidSurface box(test::box_surface(half));
  EXPECT_NEAR(box.volume(), 8 * half.prod(), 1e-15);
  EXPECT_EQ(box.sharp_edges().size(), 12u);  // the box's, not its faces' diagonals
  for (Index v = 0; v < 8; ++v) EXPECT_TRUE(box.sharp(v));
  std::mt19937 random(7);
  std::uniform_real_distribution<double> coordinate(-0.04, 0.04);
  for (int i = 0; i < 2000; ++i) {
    const Vec3 p(coordinate(random), coordinate(random), coordinate(random));
    Vec3 gradient;
    const double exact = box_distance(half, p, gradient);
    const RigidSurface::Closest c = box.closest(p);
    ASSERT_GE(c.triangle, 0);
    EXPECT_NEAR(c.distance, exact, 1e-12) << p.transpose();
    // Inside, the gradient is not unique where two faces are equally near (a measure-zero set
    // the random points avoid).
    EXPECT_LT((c.normal - gradient).norm(), 1e-9) << p.transpose();
    EXPECT_NEAR((p - c.point).norm(), std::abs(exact), 1e-12);
  }
  // Right on a corner, an edge and a face: distance 0, the feature's pseudo-normal.
  const RigidSurface::Closest corner = box.closest(half);
  EXPECT_NEAR(corner.distance, 0, 1e-15);
  EXPECT_LT((corner.normal - Vec3(1, 1, 1).normalized()).norm(), 0.3);
  EXPECT_GT(corner.normal.minCoeff(), 0);
  // Nothing within a limit closer than the surface.
  EXPECT_LT(box.closest(Vec3(0.05, 0, 0), 0.01).triangle, 0);
  EXPECT_GE(box.closest(Vec3(0.05, 0, 0), 0.031).triangle, 0);
}

TEST(RigidSurface, AnInwardWoundSurfaceIsTurnedOutward) {
  SurfaceMesh inward = test::box_surface(Vec3(0.01, 0.01, 0.01));
  for (Triangle& t : inward.triangles) std::swap(t[1], t[2]);
  const RigidSurface box(inward);
  EXPECT_NEAR(box.volume(), 8e-6, 1e-18);
  EXPECT_NEAR(box.closest(Vec3::Zero()).distance, -0.01, 1e-15);
  EXPECT_NEAR(box.closest(Vec3(0.03, 0, 0)).distance, 0.02, 1e-15);
  EXPECT_LT((box.closest(Vec3(0.03, 0, 0)).normal - Vec3::UnitX()).norm(), 1e-12);
}

TEST(RigidSurface, ASpheresDistanceIsWithinItsTessellationsSag) {
  const double radius = 0.01;
  const RigidSurface sphere(test::icosphere(radius, 3));
  // The inscribed polyhedron lies between the sphere and the sphere touching its nearest face
  // plane from inside (its sag: 0.45 % of the radius), so its signed distance lies between theirs.
  double inner = radius;
  for (size_t t = 0; t < sphere.triangles().size(); ++t)
    inner =
        std::min(inner, sphere.face_normal(static_cast<Index>(t))
                            .dot(sphere.vertices()[static_cast<size_t>(sphere.triangles()[t][0])]));
  const double sag = radius - inner;
  EXPECT_LT(sag, 0.005 * radius);
  EXPECT_TRUE(sphere.sharp_edges().empty());
  for (Index v = 0; v < static_cast<Index>(sphere.vertices().size()); ++v)
    EXPECT_FALSE(sphere.sharp(v));
  std::mt19937 random(3);
  std::normal_distribution<double> gauss;
  for (int i = 0; i < 1000; ++i) {
    const Vec3 direction = Vec3(gauss(random), gauss(random), gauss(random)).normalized();
    const double r = radius * (0.3 + 1.4 * (i % 100) / 100.0);
    const RigidSurface::Closest c = sphere.closest(r * direction);
    EXPECT_LE(c.distance, r - radius + sag + 1e-15) << r;
    EXPECT_GE(c.distance, r - radius - 1e-15) << r;
    if (std::abs(r - radius) > 2 * sag) {
      EXPECT_GT(c.normal.dot(direction), 0.98);
    }
  }
}

// A non-convex surface: the torus's hole is outside, its tube inside. The sign there comes only
// from the pseudo-normals (the nearest triangle's own normal can point either way near an edge).
TEST(RigidSurface, ATorussHoleIsOutsideAndItsTubeInside) {
  const double major = 0.03, minor = 0.01;
  const RigidSurface ring(test::torus(major, minor, 48, 24));
  std::mt19937 random(11);
  std::uniform_real_distribution<double> coordinate(-0.05, 0.05);
  const double sag = (major + minor) * (1 - std::cos(std::numbers::pi / 48)) +
                     minor * (1 - std::cos(std::numbers::pi / 24));
  int inside = 0, outside = 0;
  for (int i = 0; i < 3000; ++i) {
    const Vec3 p(coordinate(random), coordinate(random) / 2, coordinate(random));
    const double exact = std::hypot(std::hypot(p.x(), p.z()) - major, p.y()) - minor;
    const double d = ring.closest(p).distance;
    EXPECT_NEAR(d, exact, 2 * sag) << p.transpose();
    if (std::abs(exact) > 2 * sag) {
      EXPECT_EQ(d < 0, exact < 0) << p.transpose();
      (exact < 0 ? inside : outside)++;
    }
  }
  EXPECT_GT(inside, 100);
  EXPECT_GT(outside, 1000);
  EXPECT_GT(ring.closest(Vec3::Zero()).distance, 0.019);  // the hole's centre
}

TEST(RigidSurface, AnOpenMisorientedOrDegenerateSurfaceIsRefusedNamingTheFault) {
  const auto message = [](SurfaceMesh s) {
    try {
      RigidSurface surface(std::move(s));
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  SurfaceMesh open = test::box_surface(Vec3(1, 1, 1));
  open.triangles.pop_back();
  EXPECT_NE(message(open).find("has a face on one side only"), std::string::npos) << message(open);
  EXPECT_NE(message(open).find("not closed"), std::string::npos);
  SurfaceMesh flipped = test::box_surface(Vec3(1, 1, 1));
  std::swap(flipped.triangles[3][1], flipped.triangles[3][2]);
  EXPECT_NE(message(flipped).find("not consistently oriented"), std::string::npos)
      << message(flipped);
  SurfaceMesh flat = test::box_surface(Vec3(1, 1, 1));
  flat.vertices[7] = flat.vertices[3];  // face 8's corners 3 and 7 then coincide
  EXPECT_NE(message(flat).find("has no area"), std::string::npos) << message(flat);
  SurfaceMesh out_of_range = test::box_surface(Vec3(1, 1, 1));
  out_of_range.triangles[2][1] = 8;
  EXPECT_EQ(message(out_of_range), "face 3 names vertex 9 of 8");
  SurfaceMesh few;
  few.vertices = {Vec3::Zero(), Vec3::UnitX(), Vec3::UnitY()};
  few.triangles = {{0, 1, 2}, {0, 2, 1}};
  EXPECT_NE(message(few).find("at least 4 faces"), std::string::npos);

  // Parts wound different ways have no inside to tell (a second box wound inward read +0.2 at its
  // centre, outside); neither has a sheet covered from both sides (everything under it read
  // inside). Both were accepted: the check summed the whole surface's volume.
  const auto two_boxes = [](bool second_inward) {
    SurfaceMesh s = test::box_surface(Vec3(0.1, 0.1, 0.1));
    SurfaceMesh other = test::box_surface(Vec3(0.2, 0.2, 0.2));
    const auto offset = static_cast<Index>(s.vertices.size());
    for (const Vec3& x : other.vertices) s.vertices.push_back(x + Vec3(1, 0, 0));
    for (Triangle t : other.triangles) {
      if (second_inward) std::swap(t[1], t[2]);
      s.triangles.push_back({t[0] + offset, t[1] + offset, t[2] + offset});
    }
    return s;
  };
  EXPECT_EQ(message(two_boxes(false)), "accepted");
  EXPECT_NE(
      message(two_boxes(true)).find("face 13 is wound the other way from the part with face 1"),
      std::string::npos)
      << message(two_boxes(true));
  SurfaceMesh sheet;
  sheet.vertices = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(1, 0, 1), Vec3(0, 0, 1)};
  sheet.triangles = {{0, 1, 2}, {0, 2, 3}, {1, 0, 3}, {1, 3, 2}};  // each side its own diagonal
  EXPECT_NE(message(sheet).find("encloses no volume"), std::string::npos) << message(sheet);
  // Faults are named as the file names them: an OBJ polygon's line (its fan's triangles share
  // it), an STL's corners by position (their numbers are made by merging).
  SurfaceMesh from_obj = test::box_surface(Vec3(1, 1, 1));
  from_obj.face_lines.assign(from_obj.triangles.size(), 0);
  for (size_t t = 0; t < from_obj.triangles.size(); ++t)
    from_obj.face_lines[t] = 10 + static_cast<long>(t / 2);  // quads, fanned
  from_obj.vertices[7] = from_obj.vertices[3];
  EXPECT_NE(
      message(from_obj).find("the face on line 11 (vertex 2, vertex 4, vertex 8) has no area"),
      std::string::npos)
      << message(from_obj);
  SurfaceMesh from_stl = test::box_surface(Vec3(1, 1, 1));
  from_stl.vertex_numbers_from_file = false;
  from_stl.triangles.pop_back();
  EXPECT_NE(message(from_stl).find("the edge between the corners at ("), std::string::npos)
      << message(from_stl);
}

}  // namespace
}  // namespace softbody
