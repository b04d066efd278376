#include "engine/mesh/validation.h"

#include <gtest/gtest.h>

#include "engine/io/mesh_error.h"
#include "engine/tests/test_support.h"

namespace softbody {
namespace {

TEST(Validation, RepairReorientsInvertedTetrahedra) {
  TetMesh m = test::two_tets();
  std::swap(m.tets[1][0], m.tets[1][1]);
  std::vector<std::string> notes, repairs;
  EXPECT_THROW(validate_rest_mesh(m, "m", {}, notes, repairs), MeshError);
  validate_rest_mesh(m, "m", {.repair = true}, notes, repairs);
  ASSERT_EQ(repairs.size(), 1u);
  EXPECT_NE(repairs[0].find("reoriented 1 inverted"), std::string::npos);
  for (const Tet& t : m.tets) EXPECT_GT(six_signed_volume(m.vertices, t), 0);
}

TEST(Validation, RepairDropsUnreferencedVerticesAndRenumbers) {
  TetMesh m = test::single_tet();
  m.vertices.insert(m.vertices.begin() + 1, Vec3(5, 5, 5));  // unused vertex 1
  m.tets = {{0, 2, 3, 4}};
  m.vertex_sets["corner"] = {1, 4};
  std::vector<std::string> notes, repairs;
  validate_rest_mesh(m, "m", {.repair = true}, notes, repairs);
  EXPECT_EQ(m.num_vertices(), 4);
  EXPECT_EQ(m.tets[0], (Tet{0, 1, 2, 3}));
  EXPECT_EQ(m.vertices[1], Vec3(1, 0, 0));
  EXPECT_EQ(m.vertex_sets["corner"], std::vector<Index>{3});
  EXPECT_NE(repairs.at(0).find("dropped 1 unreferenced"), std::string::npos);
}

TEST(Validation, AllNegativeOrientationIsAFileConvention) {
  TetMesh m = test::two_tets();
  for (Tet& t : m.tets) std::swap(t[0], t[1]);
  std::vector<std::string> notes, repairs;
  validate_rest_mesh(m, "m", {}, notes, repairs);
  EXPECT_TRUE(repairs.empty());
  ASSERT_EQ(notes.size(), 1u);
  for (const Tet& t : m.tets) EXPECT_GT(six_signed_volume(m.vertices, t), 0);
}

TEST(Validation, SliversAreNotDegenerate) {
  TetMesh m = test::single_tet();
  m.vertices[3] = Vec3(0.3, 0.3, 1e-9);  // a very flat but valid tetrahedron
  std::vector<std::string> notes, repairs;
  EXPECT_NO_THROW(validate_rest_mesh(m, "m", {}, notes, repairs));
  m.vertices[3] = Vec3(0.3, 0.3, 0.0);
  EXPECT_THROW(validate_rest_mesh(m, "m", {}, notes, repairs), MeshError);
}

TEST(Validation, OverlappingElementsAreRejected) {
  TetMesh m = test::two_tets();
  m.vertices.push_back(Vec3(0.7, 0.7, 0.8));  // a third tetrahedron on face (1,2,3)
  m.tets.push_back({1, 2, 3, 5});
  if (six_signed_volume(m.vertices, m.tets[2]) < 0) std::swap(m.tets[2][2], m.tets[2][3]);
  std::vector<std::string> notes, repairs;
  try {
    validate_rest_mesh(m, "m", {}, notes, repairs);
    FAIL();
  } catch (const MeshError& e) {
    EXPECT_NE(std::string(e.what()).find("shared by more than two tetrahedra"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace softbody
