#include "engine/mesh/topology.h"

#include <gtest/gtest.h>

#include <set>

#include "engine/mesh/box_generator.h"
#include "engine/mesh/validation.h"
#include "engine/tests/test_support.h"

namespace softbody {
namespace {

TEST(Topology, SingleTetrahedronHasFifteenTseps) {
  MeshTopology t(test::single_tet());
  EXPECT_EQ(t.num_edges(), 6);
  EXPECT_EQ(t.num_faces(), 4);
  EXPECT_EQ(t.boundary_faces().size(), 4u);
  EXPECT_EQ(t.num_tseps(), 15);
  EXPECT_EQ(t.num_tseps_of_type(1), 12);
  EXPECT_EQ(t.num_tseps_of_type(2), 3);
}

TEST(Topology, TwoTetrahedraMatchSeed003Figure2) {
  MeshTopology t(test::two_tets());
  EXPECT_EQ(t.num_vertices(), 5);
  EXPECT_EQ(t.num_edges(), 9);
  EXPECT_EQ(t.num_faces(), 7);
  EXPECT_EQ(t.num_tseps(), 27);
  EXPECT_EQ(t.boundary_faces().size(), 6u);
}

// Checks E_p2 and s (seed 003 eqs. 33-34) against their definitions.
void expect_tsep_tables_consistent(const MeshTopology& t) {
  for (const Tsep& p : t.tseps()) {
    const EdgeVertices& a = t.edges()[static_cast<size_t>(p.edge[0])];
    const EdgeVertices& b = t.edges()[static_cast<size_t>(p.edge[1])];
    int shared = 0;
    for (size_t i = 0; i < 2; ++i) {
      for (size_t j = 0; j < 2; ++j) {
        if (a[i] == b[j]) {
          ++shared;
          EXPECT_EQ(p.s[i][j], 0);
          EXPECT_EQ(p.e_p2[i][j], -1);
          continue;
        }
        const EdgeVertices& e = t.edges()[static_cast<size_t>(p.e_p2[i][j])];
        ASSERT_TRUE((e[0] == a[i] && e[1] == b[j]) || (e[0] == b[j] && e[1] == a[i]));
        EXPECT_EQ(p.s[i][j], e[0] == a[i] ? 1 : -1);
      }
    }
    EXPECT_EQ(p.type, shared == 1 ? 1 : 2);
    EXPECT_LE(shared, 1);
  }
}

TEST(Topology, TsepTablesFollowTheirDefinitions) {
  expect_tsep_tables_consistent(MeshTopology(test::two_tets()));
  expect_tsep_tables_consistent(MeshTopology(make_box_mesh({.nx = 3, .ny = 2, .nz = 2})));
}

// Divergence theorem: the outward boundary encloses the mesh volume, sum (x . n) dA / 3 = V.
double enclosed_volume(const TetMesh& mesh, const MeshTopology& t) {
  double v = 0;
  for (const Triangle& f : t.boundary_faces()) {
    const Vec3& a = mesh.vertices[static_cast<size_t>(f[0])];
    const Vec3& b = mesh.vertices[static_cast<size_t>(f[1])];
    const Vec3& c = mesh.vertices[static_cast<size_t>(f[2])];
    v += a.dot(b.cross(c)) / 6.0;
  }
  return v;
}

TEST(Topology, BoundaryIsClosedAndOutward) {
  TetMesh box = make_box_mesh({.nx = 3, .ny = 4, .nz = 2, .size = Vec3(0.3, 0.4, 0.2)});
  MeshTopology t(box);
  EXPECT_NEAR(enclosed_volume(box, t), 0.3 * 0.4 * 0.2, 1e-15);
  // Every boundary edge is shared by exactly two boundary triangles, traversed in opposite senses.
  std::multiset<std::pair<Index, Index>> directed;
  for (const Triangle& f : t.boundary_faces()) {
    for (int k = 0; k < 3; ++k)
      directed.insert({f[static_cast<size_t>(k)], f[static_cast<size_t>((k + 1) % 3)]});
  }
  for (const auto& [a, b] : directed) {
    EXPECT_EQ(directed.count({a, b}), 1u);
    EXPECT_EQ(directed.count({b, a}), 1u);
  }
}

TEST(Topology, VertexEdgeAdjacencyIsComplete) {
  MeshTopology t(make_box_mesh({.nx = 2, .ny = 2, .nz = 2}));
  size_t total = 0;
  for (Index v = 0; v < t.num_vertices(); ++v) {
    for (const VertexEdge& ve : t.vertex_edges(v)) {
      const EdgeVertices& e = t.edges()[static_cast<size_t>(ve.edge)];
      EXPECT_EQ(e[ve.sign > 0 ? 0 : 1], v);
      ++total;
    }
  }
  EXPECT_EQ(total, 2 * static_cast<size_t>(t.num_edges()));
  EXPECT_EQ(t.find_edge(0, 1), t.find_edge(1, 0));
  EXPECT_EQ(t.find_edge(0, t.num_vertices() - 1), -1);
}

// Seed 003 footnote 1: N_P1 = 3 N_F and N_P2 = 3 N_T, on every mesh.
TEST(Topology, TsepCountsOnEveryMesh) {
  for (const std::string& path : test::all_test_meshes()) {
    LoadedMesh mesh = load_mesh(path);
    MeshTopology t(mesh.mesh);
    EXPECT_EQ(t.num_tseps_of_type(1), 3 * t.num_faces()) << path;
    EXPECT_EQ(t.num_tseps_of_type(2), 3 * t.num_tets()) << path;
    EXPECT_NEAR(
        enclosed_volume(mesh.mesh, t),
        [&] {
          double v = 0;
          for (const Tet& tet : mesh.mesh.tets) v += six_signed_volume(mesh.mesh.vertices, tet) / 6;
          return v;
        }(),
        1e-9)
        << path;
  }
}

}  // namespace
}  // namespace softbody
