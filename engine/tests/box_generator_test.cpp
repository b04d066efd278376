#include "engine/mesh/box_generator.h"

#include <gtest/gtest.h>

#include "engine/mesh/quality.h"
#include "engine/mesh/topology.h"

namespace softbody {
namespace {

TEST(BoxGenerator, CountsVolumeAndOrientation) {
  TetMesh m = make_box_mesh(
      {.nx = 4, .ny = 2, .nz = 3, .size = Vec3(2.0, 0.5, 0.75), .origin = Vec3(-1, 0, 1)});
  EXPECT_EQ(m.num_vertices(), 5 * 3 * 4);
  EXPECT_EQ(m.num_tets(), 6 * 4 * 2 * 3);
  MeshStats s = mesh_stats(m);
  EXPECT_NEAR(s.rest_volume, 2.0 * 0.5 * 0.75, 1e-14);
  EXPECT_GT(s.min_quality, 0.0);
  EXPECT_TRUE(s.bbox_min.isApprox(Vec3(-1, 0, 1)));
  EXPECT_TRUE(s.bbox_max.isApprox(Vec3(1, 0.5, 1.75)));
}

TEST(BoxGenerator, NamedBoundarySets) {
  TetMesh m = make_box_mesh({.nx = 4, .ny = 2, .nz = 3, .size = Vec3(2.0, 0.5, 0.75)});
  EXPECT_EQ(m.vertex_sets.at("xmin").size(), 3u * 4u);
  EXPECT_EQ(m.vertex_sets.at("zmax").size(), 5u * 3u);
  for (Index v : m.vertex_sets.at("xmax"))
    EXPECT_DOUBLE_EQ(m.vertices[static_cast<size_t>(v)].x(), 2.0);
  for (Index v : m.vertex_sets.at("ymin"))
    EXPECT_DOUBLE_EQ(m.vertices[static_cast<size_t>(v)].y(), 0.0);
}

TEST(BoxGenerator, ConformingAcrossCells) {
  // A conforming mesh has no interior face seen by only one tetrahedron: boundary faces are
  // exactly the two triangles per square of the six box faces.
  TetMesh m = make_box_mesh({.nx = 3, .ny = 3, .nz = 3});
  MeshTopology t(m);
  EXPECT_EQ(t.boundary_faces().size(), 6u * 9u * 2u);
}

TEST(BoxGenerator, RejectsBadSpecs) {
  EXPECT_THROW(make_box_mesh({.nx = 0}), std::invalid_argument);
  EXPECT_THROW(make_box_mesh({.size = Vec3(1, -1, 1)}), std::invalid_argument);
}

}  // namespace
}  // namespace softbody
