#include "engine/forces/volumetric.h"

#include <gtest/gtest.h>

#include "engine/mesh/box_generator.h"
#include "engine/tests/test_support.h"

namespace softbody {
namespace {

const Material kMaterial{1e5, 0.45};

TEST(Volumetric, PushesAnInvertedElementBack) {
  TetMesh tet = test::single_tet();
  auto topo = std::make_shared<const MeshTopology>(tet);
  Vec3Array inverted = tet.vertices;
  inverted[3] = Vec3(0.1, 0.1, -0.3);  // pushed through the opposite face
  const double c0 = six_signed_volume(inverted, tet.tets[0]);
  ASSERT_LT(c0, 0);
  for (VolumetricKind kind : {VolumetricKind::kCubic, VolumetricKind::kQuadratic}) {
    VolumetricTerm term(topo, tet.vertices, kMaterial, kind);
    ForceOutput out;
    out.f.assign(4, Vec3::Zero());
    term.add(inverted, kEvalForces, out);
    // A small step along the force the term exerts (-f) must increase the signed volume.
    const double step = 1e-3 / out.f[3].norm();
    Vec3Array moved = inverted;
    for (size_t i = 0; i < 4; ++i) moved[i] -= step * out.f[i];
    EXPECT_GT(six_signed_volume(moved, tet.tets[0]), c0) << volumetric_kind_name(kind);
  }
}

TEST(Volumetric, RemovesTheFictitiousMirroredEquilibrium) {
  // StVK is reflection-invariant: the mirror image of the rest shape is an equilibrium with zero
  // force. The volumetric term makes it one with a force.
  TetMesh tet = test::single_tet();
  auto topo = std::make_shared<const MeshTopology>(tet);
  Vec3Array mirrored = tet.vertices;
  for (Vec3& x : mirrored) x.z() = -x.z();
  auto plain = make_force_model("stvk-edge", topo, tet.vertices, kMaterial);
  auto with_vol =
      make_force_model("stvk-edge", topo, tet.vertices, kMaterial, VolumetricKind::kCubic);
  double plain_force = 0, vol_force = 0;
  for (const Vec3& f : plain->evaluate(mirrored).f) plain_force += f.norm();
  for (const Vec3& f : with_vol->evaluate(mirrored).f) vol_force += f.norm();
  EXPECT_LT(plain_force, 1e-9 * kMaterial.youngs_modulus);
  EXPECT_GT(vol_force, 1e-3 * kMaterial.youngs_modulus);
}

TEST(Volumetric, CubicTermIsInactiveUnderExpansion) {
  TetMesh box = make_box_mesh({.nx = 2, .ny = 2, .nz = 2});
  auto topo = std::make_shared<const MeshTopology>(box);
  VolumetricTerm cubic(topo, box.vertices, kMaterial, VolumetricKind::kCubic);
  Vec3Array expanded = box.vertices;
  for (Vec3& x : expanded) x *= 1.1;
  ForceOutput out;
  out.f.assign(expanded.size(), Vec3::Zero());
  out.K.resize(topo->num_vertices(), topo->num_edges());
  out.K.set_zero();
  cubic.add(expanded, kEvalAll, out);
  EXPECT_EQ(out.energy, 0.0);
  for (const Vec3& f : out.f) EXPECT_EQ(f, Vec3::Zero());
  EXPECT_EQ(out.K.frobenius_norm(), 0.0);
}

TEST(Volumetric, QuadraticEnergyUnderUniformScaling) {
  // x -> s x: theta = s^3 - 1 in every element, so W = V * 0.1 E theta^2 / (6 (1 - 2 nu)).
  TetMesh box = make_box_mesh({.nx = 2, .ny = 3, .nz = 2, .size = Vec3(0.2, 0.3, 0.1)});
  auto topo = std::make_shared<const MeshTopology>(box);
  VolumetricTerm quadratic(topo, box.vertices, kMaterial, VolumetricKind::kQuadratic);
  const double s = 0.8, theta = s * s * s - 1;
  Vec3Array scaled = box.vertices;
  for (Vec3& x : scaled) x *= s;
  ForceOutput out;
  quadratic.add(scaled, kEvalEnergy, out);
  const double expected = 0.2 * 0.3 * 0.1 * 0.1 * kMaterial.youngs_modulus * theta * theta /
                          (6 * (1 - 2 * kMaterial.poisson_ratio));
  EXPECT_NEAR(out.energy, expected, 1e-12 * expected);
}

}  // namespace
}  // namespace softbody
