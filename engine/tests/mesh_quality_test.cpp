// Element quality, the sliver count and the warning a user gets for a mesh with slivers.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/mesh/box_generator.h"
#include "engine/mesh/quality.h"

namespace softbody {
namespace {

// Two tetrahedra on one base: a regular one and one whose apex sits `height` above the base's
// plane, over its centroid (quality proportional to the height for a small one).
TetMesh regular_and_flattened(double height) {
  TetMesh m;
  const double s = std::sqrt(3.0);
  m.vertices = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0.5, s / 2, 0),
                Vec3(0.5, s / 6, std::sqrt(2.0 / 3.0)), Vec3(0.5, s / 6, -height)};
  m.tets = {Tet{0, 1, 2, 3}, Tet{0, 2, 1, 4}};
  return m;
}

TEST(MeshQuality, ARegularTetrahedronHasQualityOne) {
  const TetMesh m = regular_and_flattened(0.5);
  EXPECT_NEAR(tet_quality(m.vertices, m.tets[0]), 1.0, 1e-12);
}

TEST(MeshQuality, SliversAreCountedAndWarnedOfWithTheirFigures) {
  // Height 1e-4 of an edge-1 base: quality ~2.3e-4, a sliver; 0.1: quality ~0.2, sound.
  const TetMesh sliver = regular_and_flattened(1e-4), sound = regular_and_flattened(0.1);
  const MeshStats with = mesh_stats(sliver), without = mesh_stats(sound);
  EXPECT_EQ(with.slivers, 1u);
  EXPECT_LT(with.min_quality, kSliverQuality);
  EXPECT_GT(with.min_quality, 0.0);
  EXPECT_EQ(without.slivers, 0u);
  EXPECT_TRUE(mesh_warnings(without, sound.tets.size(), "sound.mesh").empty());
  const std::vector<std::string> warnings = mesh_warnings(with, sliver.tets.size(), "thin.mesh");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].rfind("thin.mesh: 1 of 2 tetrahedra are slivers (quality", 0), 0u)
      << warnings[0];
  EXPECT_NE(warnings[0].find("below 0.001"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("remesh it with a quality bound"), std::string::npos);
}

TEST(MeshQuality, AGeneratedBoxHasNoSlivers) {
  const TetMesh m = make_box_mesh({.nx = 6, .ny = 2, .nz = 2, .size = Vec3(0.3, 0.1, 0.1)});
  EXPECT_EQ(mesh_stats(m).slivers, 0u);
}

}  // namespace
}  // namespace softbody
