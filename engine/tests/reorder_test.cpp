#include "engine/mesh/reorder.h"

#include <gtest/gtest.h>

#include "engine/forces/force_model.h"
#include "engine/forces/verification.h"
#include "engine/mesh/box_generator.h"
#include "engine/mesh/topology.h"

namespace softbody {
namespace {

TEST(Reorder, IsAPermutationThatPreservesThePhysics) {
  TetMesh original = make_box_mesh({.nx = 5, .ny = 3, .nz = 4});
  TetMesh reordered = original;
  MeshPermutation perm = reorder_for_locality(reordered);
  ASSERT_EQ(reordered.vertices.size(), original.vertices.size());
  for (size_t i = 0; i < original.vertices.size(); ++i) {
    EXPECT_EQ(reordered.vertices[static_cast<size_t>(perm.new_of_old_vertex[i])],
              original.vertices[i]);
    EXPECT_EQ(perm.old_of_new_vertex[static_cast<size_t>(perm.new_of_old_vertex[i])],
              static_cast<Index>(i));
  }
  for (Index v : reordered.vertex_sets.at("xmin"))
    EXPECT_EQ(reordered.vertices[static_cast<size_t>(v)].x(), 0.0);
  const Material material{1e5, 0.3};
  Vec3Array p = random_smooth_deformation(original.vertices, 0.2, 2);
  auto a = make_force_model("stvk-edge", std::make_shared<const MeshTopology>(original),
                            original.vertices, material);
  auto b = make_force_model("stvk-edge", std::make_shared<const MeshTopology>(reordered),
                            reordered.vertices, material);
  ForceOutput fa = a->evaluate(p), fb = b->evaluate(permute_vertices(p, perm));
  EXPECT_NEAR(fa.energy, fb.energy, 1e-12 * fa.energy);
  for (size_t i = 0; i < p.size(); ++i) {
    EXPECT_LT((fa.f[i] - fb.f[static_cast<size_t>(perm.new_of_old_vertex[i])]).norm(),
              1e-9 * fa.f[i].norm() + 1e-12);
  }
}

TEST(Reorder, ReducesTheBandwidthOfAScrambledMesh) {
  TetMesh mesh = make_box_mesh({.nx = 6, .ny = 6, .nz = 6});
  // Scramble the vertex order deterministically.
  std::vector<Index> scramble(mesh.vertices.size());
  for (size_t i = 0; i < scramble.size(); ++i)
    scramble[i] = static_cast<Index>((i * 7919) % scramble.size());
  TetMesh scrambled = mesh;
  for (size_t i = 0; i < scramble.size(); ++i)
    scrambled.vertices[static_cast<size_t>(scramble[i])] = mesh.vertices[i];
  for (Tet& t : scrambled.tets) {
    for (Index& v : t) v = scramble[static_cast<size_t>(v)];
  }
  auto bandwidth = [](const TetMesh& m) {
    Index worst = 0;
    const MeshTopology topology(m);
    for (const EdgeVertices& e : topology.edges()) worst = std::max(worst, e[1] - e[0]);
    return worst;
  };
  Index before = bandwidth(scrambled);
  reorder_for_locality(scrambled);
  EXPECT_LT(bandwidth(scrambled), before / 4);
}

}  // namespace
}  // namespace softbody
