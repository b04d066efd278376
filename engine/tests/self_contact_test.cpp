// Self contact (engine/contact/, issue 22: "body-body and self contact enter through W"): two
// blocks of one mesh, the upper one dropped on the lower one, which is held at its base. With
// contact.self the upper block comes to rest on the lower one without sinking into it, and with
// friction it sticks on a slope Coulomb says it sticks on; without self contact it falls through.
// Two ridges crossing meet edge against edge, where no vertex meets a face.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "engine/contact/contact_detection.h"
#include "engine/mesh/box_generator.h"
#include "engine/sim/integrator.h"
#include "engine/tests/box_models.h"

namespace softbody {
namespace {

constexpr double kSize = 0.04, kGap = 0.001;

// Two 4 x 2 x 4 cm blocks in one mesh: the lower with its base held, the upper kGap above it.
// Gravity tilted by `degrees` about z: a slope of that angle between the blocks.
SimulationModel stacked_blocks(bool self, double mu, double degrees) {
  const BoxSpec spec{.nx = 3, .ny = 2, .nz = 3, .size = Vec3(kSize, kSize / 2, kSize)};
  const TetMesh lower = make_box_mesh(spec);
  BoxSpec upper_spec = spec;
  upper_spec.origin = Vec3(0, kSize / 2 + kGap, 0);
  const TetMesh upper = make_box_mesh(upper_spec);
  TetMesh mesh = lower;
  const auto offset = static_cast<Index>(lower.vertices.size());
  mesh.vertices.insert(mesh.vertices.end(), upper.vertices.begin(), upper.vertices.end());
  for (Tet t : upper.tets) {
    for (Index& v : t) v += offset;
    mesh.tets.push_back(t);
  }
  const double theta = degrees * std::numbers::pi / 180;
  SimulationModel m = test::mesh_model(mesh, {2e5, 0.3, 1000}, lower.vertex_sets.at("ymin"),
                                       9.81 * Vec3(std::sin(theta), -std::cos(theta), 0));
  m.options.dt = 0.01;
  m.contact.self = self;
  m.contact.self_mu = mu;
  return m;
}

struct Outcome {
  double lowest_upper = 0;  // the upper block's lowest vertex at the end [m]
  double upper_slide = 0;   // its mean x travel [m]
  double max_speed = 0;     // of the upper block at the end [m/s]
  double max_penetration = 0;
  int self_contacts = 0;  // at the last step
};

// `speed`: the upper block's initial downward speed [m/s].
Outcome drop(const SimulationModel& model, int steps, double speed = 0) {
  auto shared = std::make_shared<const SimulationModel>(model);
  auto integrator = make_integrator(shared);
  SimulationState s = rest_state(*shared);
  for (size_t v = s.p.size() / 2; v < s.p.size(); ++v) s.v[v] = Vec3(0, -speed, 0);
  Outcome o;
  for (int i = 0; i < steps; ++i) {
    const StepStats stats = integrator->step(s);
    EXPECT_FALSE(stats.failed);
    o.max_penetration = std::max(o.max_penetration, stats.max_penetration);
    o.self_contacts = stats.constraint_contacts;
  }
  const size_t first_upper = s.p.size() / 2;
  o.lowest_upper = INFINITY;
  for (size_t v = first_upper; v < s.p.size(); ++v) {
    o.lowest_upper = std::min(o.lowest_upper, s.p[v].y());
    o.upper_slide += (s.p[v].x() - model.rest[v].x()) / static_cast<double>(first_upper);
    o.max_speed = std::max(o.max_speed, s.v[v].norm());
  }
  return o;
}

TEST(SelfContact, ADroppedBlockRestsOnTheOtherWithoutSinkingIn) {
  const Outcome with = drop(stacked_blocks(true, 0.5, 0), 40);
  // On the lower block's top face (y = 2 cm, which sags a little under the weight): not into it.
  EXPECT_GT(with.lowest_upper, kSize / 2 - 2e-4);
  EXPECT_LT(with.lowest_upper, kSize / 2 + kGap);  // it did come down onto it
  EXPECT_GT(with.self_contacts, 0);
  EXPECT_LT(with.max_penetration, 2e-4);
  EXPECT_LT(with.max_speed, 0.05);  // at rest there
  const Outcome without = drop(stacked_blocks(false, 0.5, 0), 40);
  EXPECT_LT(without.lowest_upper, 0.0);  // through the lower block and below its base
  EXPECT_EQ(without.self_contacts, 0);
}

// mu = 0.5 = tan 26.6 deg: on a 15 deg slope the upper block sticks (it settles and stays), on
// 40 deg it slides off down the slope; frictionless it slides on 15 deg too.
// Thrown at 1.5 m/s (15 mm a step of 10 ms), the upper block's bottom passes 14 mm into the lower
// block's top within the first step's free motion: beyond the discrete detection's reach (the
// margin and half a boundary edge, ~7 mm), where only continuous detection (each vertex that
// crossed a face during the step) sees the contact.
TEST(SelfContact, ABlockThrownFasterThanHalfAnEdgePerStepStopsOnTheOther) {
  const Outcome with = drop(stacked_blocks(true, 0.5, 0), 40, 1.5);
  EXPECT_GT(with.lowest_upper, kSize / 2 - 5e-4);
  EXPECT_LT(with.max_speed, 0.05);
  SimulationModel discrete = stacked_blocks(true, 0.5, 0);
  discrete.contact.self_continuous = false;
  const Outcome without = drop(discrete, 40, 1.5);
  EXPECT_LT(without.lowest_upper, kSize / 2 - 5e-3);  // into the lower block, or through it
}

// Two tetrahedra of one mesh, vertices 0-3 and 4-7, each positively oriented.
void orient_two_tetrahedra(TetMesh& mesh) {
  mesh.tets = {{0, 1, 2, 3}, {4, 5, 6, 7}};
  const auto at = [&](Index v) { return mesh.vertices[static_cast<size_t>(v)]; };
  for (Tet& t : mesh.tets)
    if ((at(t[1]) - at(t[0])).cross(at(t[2]) - at(t[0])).dot(at(t[3]) - at(t[0])) < 0)
      std::swap(t[1], t[2]);
}

// The mesh's positions with the second tetrahedron moved by `by`.
Vec3Array upper_moved(const TetMesh& mesh, const Vec3& by) {
  Vec3Array x = mesh.vertices;
  for (size_t v = 4; v < 8; ++v) x[v] += by;
  return x;
}

// Continuous detection's geometry: two tetrahedra of one mesh, the upper's apex moved 1.2 down in
// one step, through the lower's top face (y = 0) to 0.7 below it, beyond the discrete reach. The
// contact is with that face at the point the apex crossed it, and the apex passing beside the
// face gives none.
TEST(SelfContact, AVertexThatCrossedAFaceWithinTheStepMeetsItWhereItCrossed) {
  TetMesh mesh;
  // Lower: its top face (0,0,0), (1,0,0), (0,0,1) faces +y. Upper: apex down at (0.25, 0.5, 0.25).
  mesh.vertices = {Vec3(0, 0, 0),         Vec3(1, 0, 0),   Vec3(0, 0, 1),   Vec3(0.3, -1, 0.3),
                   Vec3(0.25, 0.5, 0.25), Vec3(0, 1.5, 0), Vec3(1, 1.5, 0), Vec3(0, 1.5, 1)};
  orient_two_tetrahedra(mesh);
  const MeshTopology topology(mesh);
  const auto moved = [&](const Vec3& by) { return upper_moved(mesh, by); };
  const auto apex_contact = [&](const Vec3Array& end, bool continuous) {
    ContactDetector detector(topology, mesh.vertices);
    std::vector<ContactPoint> found;
    detector.detect_self_over_step(mesh.vertices, end, 0.01, 0.2, continuous, found);
    for (const ContactPoint& c : found)
      if (c.vertices[0] == 4 && c.weights[0] == 1) return c;
    return ContactPoint{};
  };
  const Vec3Array through = moved(Vec3(0, -1.2, 0));
  EXPECT_EQ(apex_contact(through, false).count, 0);  // 0.7 behind: out of the discrete reach
  const ContactPoint c = apex_contact(through, true);
  ASSERT_EQ(c.count, 4);
  EXPECT_LT((c.normal - Vec3(0, 1, 0)).norm(), 1e-12);
  EXPECT_NEAR(c.gap, -0.7, 1e-12);
  EXPECT_EQ(c.mu, 0.2);
  // Crossed at (0.25, 0, 0.25): weights 0.5, 0.25, 0.25 on the face's corners, negated.
  for (int i = 1; i < 4; ++i) {
    const Index corner = c.vertices[static_cast<size_t>(i)];
    const double expected = corner == 0 ? -0.5 : -0.25;
    EXPECT_NEAR(c.weights[static_cast<size_t>(i)], expected, 1e-12) << "corner " << corner;
  }
  EXPECT_LT((c.position(through) - Vec3(0, -0.7, 0)).norm(), 1e-12);
  // Beside the face: the apex passes down at x = z = 0.9 (0.9 + 0.9 > 1: outside the triangle).
  EXPECT_EQ(apex_contact(moved(Vec3(0.65, -1.2, 0.65)), true).count, 0);
}

// Continuous edge-edge detection's geometry: two tetrahedra of one mesh, each with an edge facing
// the other's across (the lower's top edge along x at y = 0, the upper's bottom edge along z at
// y = 0.5), the upper moved 2.5 down in one step: its edge passes the lower's at (0.2, 0, 0), 0.6
// of the way along the lower edge and halfway along the upper, and ends 2 below it, beyond the
// discrete reach (half a mean edge, 1.4). No vertex crosses a face: the edges' ends pass outside
// the other tetrahedron. Passing beside the edge gives no contact of that pair.
TEST(SelfContact, AnEdgeThatCrossedAnEdgeWithinTheStepMeetsItWhereItCrossed) {
  TetMesh mesh;
  mesh.vertices = {Vec3(-1, 0, 0),     Vec3(1, 0, 0),     Vec3(0, -3, -1),    Vec3(0, -3, 1),
                   Vec3(0.2, 0.5, -2), Vec3(0.2, 0.5, 2), Vec3(-1, 1.5, 0.7), Vec3(1, 1.5, 0.7)};
  orient_two_tetrahedra(mesh);
  const MeshTopology topology(mesh);
  const auto moved = [&](const Vec3& by) { return upper_moved(mesh, by); };
  const auto is_pair = [](const ContactPoint& c) {
    std::array<Index, 4> v = c.vertices;
    std::sort(v.begin(), v.end());
    return c.count == 4 && v == std::array<Index, 4>{0, 1, 4, 5};
  };
  const auto edge_contact = [&](const Vec3Array& end, bool continuous, int& vertex_face) {
    ContactDetector detector(topology, mesh.vertices);
    std::vector<ContactPoint> found;
    detector.detect_self_over_step(mesh.vertices, end, 0.01, 0.2, continuous, found);
    vertex_face = 0;
    ContactPoint pair;
    for (const ContactPoint& c : found) {
      if (c.weights[0] == 1) ++vertex_face;
      if (is_pair(c)) pair = c;
    }
    return pair;
  };
  const Vec3Array through = moved(Vec3(0, -2.5, 0));
  int vertex_face = 0;
  EXPECT_EQ(edge_contact(through, false, vertex_face).count, 0);  // 2 deep: out of reach
  const ContactPoint c = edge_contact(through, true, vertex_face);
  EXPECT_EQ(vertex_face, 0) << "no vertex crossed a face";
  ASSERT_EQ(c.count, 4);
  EXPECT_EQ(c.mu, 0.2);
  // The near edge's point minus the far edge's: the lower edge's point (0.2, 0, 0) and the upper
  // edge's (0.2, -2, 0) at the step's end; the normal across both (y), pointing the way the near
  // side lay at the start, so the gap there was +0.5 and is -2 now.
  EXPECT_NEAR(std::abs(c.normal.y()), 1, 1e-12);
  EXPECT_NEAR(c.normal.dot(c.position(mesh.vertices)), 0.5, 1e-9);
  EXPECT_NEAR(c.gap, -2, 1e-9);
  EXPECT_NEAR(c.normal.dot(c.position(through)), -2, 1e-9);
  double weight_sum = 0;
  for (int i = 0; i < 4; ++i) {
    const Index v = c.vertices[static_cast<size_t>(i)];
    const double w = std::abs(c.weights[static_cast<size_t>(i)]);
    weight_sum += c.weights[static_cast<size_t>(i)];
    const double expected = v == 0 ? 0.4 : v == 1 ? 0.6 : 0.5;  // (0.2 + 1) / 2 along the lower
    EXPECT_NEAR(w, expected, 1e-9) << "vertex " << v;
  }
  EXPECT_NEAR(weight_sum, 0, 1e-12);  // a rigid motion moves no self contact point
  // Beside the lower edge: moved 5 along x too, the upper edge passes y = 0 at x = 1.2 > 1.
  EXPECT_EQ(edge_contact(moved(Vec3(5, -2.5, 0)), true, vertex_face).count, 0);
}

TEST(SelfContact, FrictionBetweenTheBlocksHoldsBelowCoulombsAngle) {
  const Outcome sticks = drop(stacked_blocks(true, 0.5, 15), 40);
  const Outcome slides = drop(stacked_blocks(true, 0.5, 40), 40);
  const Outcome frictionless = drop(stacked_blocks(true, 0.0, 15), 40);
  EXPECT_LT(std::abs(sticks.upper_slide), 1e-3);
  EXPECT_GT(slides.upper_slide, 5e-3);
  EXPECT_GT(frictionless.upper_slide, 5e-3);
}

// No false contacts: a cantilever bending under its own weight (its surface curving, its top and
// bottom faces an element apart) finds no self contact in any step and moves exactly as with self
// contact off.
TEST(SelfContact, ABendingBarFindsNoContactWithItself) {
  const auto bar = [](bool self) {
    SimulationModel m = test::box_model({.nx = 8, .ny = 1, .nz = 1, .size = Vec3(0.16, 0.02, 0.02)},
                                        {5e4, 0.3, 1000}, "xmin", Vec3(0, -9.81, 0));
    m.options.dt = 0.01;
    m.contact.self = self;
    return std::make_shared<const SimulationModel>(std::move(m));
  };
  const auto with = bar(true), without = bar(false);
  auto a = make_integrator(with), b = make_integrator(without);
  SimulationState s = rest_state(*with), t = rest_state(*without);
  for (int step = 0; step < 30; ++step) {
    EXPECT_EQ(a->step(s).constraint_contacts, 0) << "step " << step;
    b->step(t);
  }
  EXPECT_GT(with->rest.back().y() - s.p.back().y(), 0.01);  // it did bend (the tip fell > 1 cm)
  for (size_t v = 0; v < s.p.size(); ++v) EXPECT_EQ(s.p[v], t.p[v]);
}

// Two 4 cm cubes of one mesh, each turned 45 degrees so that an edge is a ridge: the lower one
// (turned about x, its lower half held) with its ridge on top along x, the upper one (turned about
// z) with its ridge below along z, kGap above, the ridges crossing at their middles, between
// vertices (3 cells along each). Where they cross no vertex is near a face (the nearest lie 4.7 mm
// off the other cube's slopes): only edge-edge contact holds the upper cube up.
struct CrossingRidges {
  SimulationModel model;
  // The ends of the ridge edge that crosses the other ridge, lower cube's and upper cube's.
  std::array<Index, 2> lower_ridge{}, upper_ridge{};
};

CrossingRidges crossing_ridges(bool self) {
  const BoxSpec spec{.nx = 3, .ny = 3, .nz = 3, .size = Vec3::Constant(kSize)};
  const TetMesh cube = make_box_mesh(spec);
  const double c = std::sqrt(0.5), half_diagonal = kSize * c;
  const Vec3 centre = Vec3::Constant(kSize / 2);
  TetMesh mesh;
  CrossingRidges r;
  std::vector<Index> held;
  for (int block = 0; block < 2; ++block) {
    const auto offset = static_cast<Index>(mesh.vertices.size());
    for (size_t v = 0; v < cube.vertices.size(); ++v) {
      const Vec3 q = cube.vertices[v] - centre;
      Vec3 p;
      if (block == 0) {
        p = Vec3(q.x(), c * (q.y() - q.z()), c * (q.y() + q.z()));  // about x
      } else {
        p = Vec3(c * (q.x() - q.y()), c * (q.x() + q.y()), q.z());  // about z
        p.y() += 2 * half_diagonal + kGap;
      }
      const auto index = offset + static_cast<Index>(v);
      if (block == 0 && p.y() < -1e-9) held.push_back(index);
      // The ridge vertices next to the crossing (x or z = +-L/6 on the ridge).
      const bool near_middle = std::abs(std::abs(block == 0 ? p.x() : p.z()) - kSize / 6) < 1e-9;
      if (block == 0 && near_middle && std::abs(p.y() - half_diagonal) < 1e-9)
        r.lower_ridge[p.x() < 0 ? 0 : 1] = index;
      if (block == 1 && near_middle && std::abs(p.y() - half_diagonal - kGap) < 1e-9)
        r.upper_ridge[p.z() < 0 ? 0 : 1] = index;
      mesh.vertices.push_back(p);
    }
    for (Tet t : cube.tets) {
      for (Index& v : t) v += offset;
      mesh.tets.push_back(t);
    }
  }
  r.model = test::mesh_model(mesh, {2e5, 0.3, 1000}, held, Vec3(0, -9.81, 0));
  r.model.options.dt = 0.01;
  r.model.contact.self = self;
  r.model.contact.self_mu = 0.5;
  return r;
}

TEST(SelfContact, CrossingRidgesMeetEdgeAgainstEdge) {
  const auto run = [](bool self, double& deepest, int& contacts) {
    const CrossingRidges r = crossing_ridges(self);
    auto shared = std::make_shared<const SimulationModel>(r.model);
    auto integrator = make_integrator(shared);
    SimulationState s = rest_state(*shared);
    deepest = -INFINITY;
    for (int step = 0; step < 30; ++step) {
      const StepStats stats = integrator->step(s);
      EXPECT_FALSE(stats.failed);
      contacts = stats.constraint_contacts;
      // How far the upper ridge's middle went below the lower ridge's middle, where they cross.
      const auto middle = [&](const std::array<Index, 2>& e) {
        return 0.5 * (s.p[static_cast<size_t>(e[0])] + s.p[static_cast<size_t>(e[1])]);
      };
      deepest = std::max(deepest, middle(r.lower_ridge).y() - middle(r.upper_ridge).y());
    }
  };
  double with = 0, without = 0;
  int contacts_with = 0, contacts_without = 0;
  run(true, with, contacts_with);
  run(false, without, contacts_without);
  ASSERT_GT(with, -kGap);  // the upper cube came down onto the lower
  EXPECT_LT(with, 1e-4);   // and rests on the crossing (the ridges' sag is below 0.1 mm)
  EXPECT_GT(contacts_with, 0);
  EXPECT_GT(without, 3e-3);  // without self contact the ridges pass through each other
  EXPECT_EQ(contacts_without, 0);
}

}  // namespace
}  // namespace softbody
