// The hyperelastic laws (forces/hyperelastic.h): closed-form energy and traction under a
// homogeneous stretch, linear elasticity at small strain, inverted elements pushed back out, and
// the Mooney-Rivlin refusal. Finite-difference checks of f and K run for every model in
// force_model_test.cpp (EveryModel).
#include "engine/forces/hyperelastic.h"

#include <gtest/gtest.h>

#include <cmath>

#include "engine/forces/force_model.h"
#include "engine/forces/verification.h"
#include "engine/mesh/box_generator.h"
#include "engine/tests/test_support.h"

namespace softbody {
namespace {

const Material kTissue{3e4, 0.45};

// Under a homogeneous F every tetrahedron has the same strain: the energy is V W(F) and the force
// on the x = L face is the first Piola-Kirchhoff traction P e_x A.
TEST(Hyperelastic, AHomogeneousStretchMatchesTheClosedForm) {
  const Vec3 size(0.4, 0.2, 0.3);
  const TetMesh mesh = make_box_mesh({.nx = 4, .ny = 2, .nz = 3, .size = size});
  auto topo = std::make_shared<const MeshTopology>(mesh);
  const double lambda = kTissue.lambda(), mu = kTissue.mu();
  for (const Vec3& stretch : {Vec3(1.3, 0.9, 0.95), Vec3(0.6, 1.1, 1.2)}) {
    const Mat3 f = stretch.asDiagonal();
    Vec3Array p(mesh.vertices.size());
    for (size_t i = 0; i < p.size(); ++i) p[i] = f * mesh.vertices[i];
    const double j = f.determinant(), i1 = (f.transpose() * f).trace();
    const Mat3 f_inv_t = f.inverse().transpose();
    const double tr_e = 0.5 * (i1 - 3);
    struct Expected {
      const char* model;
      double w;
      Mat3 piola;
    };
    const Expected expected[] = {
        // Ciarlet's compressible Neo-Hooke.
        {"neo-hookean",
         mu / 2 * (i1 - 3) - mu * std::log(j) + lambda / 4 * (j * j - 1 - 2 * std::log(j)),
         Mat3(mu * (f - f_inv_t) + lambda / 2 * (j * j - 1) * f_inv_t)},
        // Without rotation S = F: mu |F - I|^2 + lambda / 2 tr(E)^2.
        {"hybrid", mu * (f - Mat3::Identity()).squaredNorm() + lambda / 2 * tr_e * tr_e,
         Mat3(2 * mu * (f - Mat3::Identity()) + lambda * tr_e * f)},
        // Bonet and Wood's Neo-Hooke (J above the clamp at 0.5 here).
        {"cnh", mu / 2 * (i1 - 3) - mu * std::log(j) + lambda / 2 * std::pow(std::log(j), 2),
         Mat3(mu * (f - f_inv_t) + lambda * std::log(j) * f_inv_t)},
        // Kim and Eberle's stable Neo-Hooke, lambda_s = lambda + mu, alpha = 1 + mu / lambda_s.
        {"snh",
         mu / 2 * (i1 - 3) +
             (lambda + mu) / 2 *
                 (std::pow(j - 1 - mu / (lambda + mu), 2) - std::pow(mu / (lambda + mu), 2)),
         Mat3(mu * f + (lambda + mu) * (j - 1 - mu / (lambda + mu)) * j * f_inv_t)},
        // Smith et al.'s, mu_s = 4 mu / 3, lambda_s = lambda + 5 mu / 6.
        {"snh-smith",
         [&] {
           const double ms = 4 * mu / 3, ls = lambda + 5 * mu / 6, a = 1 + 3 * ms / (4 * ls);
           return ms / 2 * (i1 - 3) + ls / 2 * ((j - a) * (j - a) - (1 - a) * (1 - a)) -
                  ms / 2 * (std::log(i1 + 1) - std::log(4.0));
         }(),
         [&] {
           const double ms = 4 * mu / 3, ls = lambda + 5 * mu / 6, a = 1 + 3 * ms / (4 * ls);
           return Mat3(ms * f + ls * (j - a) * j * f_inv_t - ms / (i1 + 1) * f);
         }()},
    };
    for (const Expected& x : expected) {
      auto model = make_force_model(x.model, topo, mesh.vertices, kTissue);
      const ForceOutput out = model->evaluate(p);
      EXPECT_NEAR(out.energy, size.prod() * x.w, 1e-11 * size.prod() * std::abs(x.w)) << x.model;
      Vec3 face_force = Vec3::Zero();
      for (Index v : mesh.vertex_sets.at("xmax")) face_force += out.f[static_cast<size_t>(v)];
      const Vec3 traction = x.piola * Vec3::UnitX() * (size.y() * size.z());
      EXPECT_LT((face_force - traction).norm(), 1e-10 * traction.norm()) << x.model;
    }
  }
}

TEST(Hyperelastic, EveryLawIsLinearElasticityAtSmallStrain) {
  const TetMesh mesh = make_box_mesh({.nx = 3, .ny = 2, .nz = 2, .size = Vec3(0.3, 0.2, 0.2)});
  auto topo = std::make_shared<const MeshTopology>(mesh);
  auto linear = make_force_model("stvk-tl", topo, mesh.vertices, kTissue);
  for (const char* name : {"neo-hookean", "mooney-rivlin", "hybrid", "snh", "snh-smith", "cnh"}) {
    auto model = make_force_model(name, topo, mesh.vertices, kTissue);
    // Rest is stress free, and the stiffness at rest is linear elasticity's.
    const ForceOutput at_rest = model->evaluate(mesh.vertices);
    EXPECT_NEAR(at_rest.energy, 0, 1e-12 * kTissue.youngs_modulus) << name;
    for (const Vec3& f : at_rest.f) EXPECT_LT(f.norm(), 1e-9 * kTissue.youngs_modulus) << name;
    EXPECT_LT(relative_difference(at_rest.K, linear->evaluate(mesh.vertices).K), 1e-12) << name;
    for (double scale : {1e-3, 1e-5}) {
      const Vec3Array p = random_smooth_deformation(mesh.vertices, scale, 8);
      // Rotated too: the laws are frame-indifferent, their difference is O(strain).
      EXPECT_LT(relative_difference(model->evaluate(p).f, linear->evaluate(p).f), 30 * scale)
          << name << " " << scale;
    }
  }
}

TEST(Hyperelastic, AnInvertedElementIsPushedBackOut) {
  const TetMesh tet = test::single_tet();
  auto topo = std::make_shared<const MeshTopology>(tet);
  Vec3Array inverted = tet.vertices;
  inverted[3] = Vec3(0.1, 0.1, -0.3);
  const double c0 = six_signed_volume(inverted, tet.tets[0]);
  ASSERT_LT(c0, 0);
  for (const char* name : {"neo-hookean", "mooney-rivlin", "snh", "snh-smith", "cnh"}) {
    auto model = make_force_model(name, topo, tet.vertices, kTissue);
    const ForceOutput out = model->evaluate(inverted);
    EXPECT_TRUE(std::isfinite(out.energy)) << name;
    const double step = 1e-3 / out.f[3].norm();
    Vec3Array moved = inverted;
    for (size_t i = 0; i < 4; ++i) moved[i] -= step * out.f[i];
    EXPECT_GT(six_signed_volume(moved, tet.tets[0]), c0) << name;
    // The continuation of ln J is twice differentiable through J = 0.
    EXPECT_LT(force_vs_energy_error(*model, inverted), 1e-6) << name;
    EXPECT_LT(stiffness_vs_force_error(*model, inverted), 1e-6) << name;
  }
}

// CNH's clamp: below J0 the law is the quadratic continuation, smooth through J0, and J0 is the
// material's (finite-difference checks of f and K there, and a different energy below a
// different J0).
TEST(Hyperelastic, TheClampedNeoHookeContinuesBelowItsThreshold) {
  const TetMesh tet = test::single_tet();
  auto topo = std::make_shared<const MeshTopology>(tet);
  Vec3Array squashed = tet.vertices;
  squashed[3] *= 0.3;  // J = 0.3
  Material low = kTissue, high = kTissue;
  low.cnh_threshold = 0.1;
  high.cnh_threshold = 0.5;
  auto below = make_force_model("cnh", topo, tet.vertices, high);  // 0.3 < 0.5: continued
  auto above = make_force_model("cnh", topo, tet.vertices, low);   // 0.3 > 0.1: ln J itself
  EXPECT_LT(force_vs_energy_error(*below, squashed), 1e-6);
  EXPECT_LT(stiffness_vs_force_error(*below, squashed), 1e-6);
  const double lambda = kTissue.lambda(), mu = kTissue.mu();
  const double v = six_signed_volume(tet.vertices, tet.tets[0]) / 6;
  const Mat3 f = Vec3(1, 1, 0.3).asDiagonal();  // the single tet's corner 3 lies on the z axis
  const double i1 = f.squaredNorm(), lnj = std::log(0.3);
  EXPECT_NEAR(above->evaluate(squashed).energy,
              v * (mu / 2 * (i1 - 3) - mu * lnj + lambda / 2 * lnj * lnj), 1e-9 * v * lambda);
  const double s = 0.3 - 0.5, f_j = std::log(0.5) + s / 0.5 - s * s / (2 * 0.25);
  EXPECT_NEAR(below->evaluate(squashed).energy,
              v * (mu / 2 * (i1 - 3) - mu * f_j + lambda / 2 * f_j * f_j), 1e-9 * v * lambda);
}

TEST(Hyperelastic, LawsRefuseMaterialsTheyAreNotBoundedFor) {
  const TetMesh tet = test::single_tet();
  auto topo = std::make_shared<const MeshTopology>(tet);
  try {
    make_force_model("mooney-rivlin", topo, tet.vertices, Material{1e5, 0.2});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("mooney-rivlin needs lambda >= mu (nu >= 0.25)"),
              std::string::npos);
  }
  EXPECT_NO_THROW(make_force_model("mooney-rivlin", topo, tet.vertices, Material{1e5, 0.25}));
  try {
    make_force_model("neo-hookean", topo, tet.vertices, Material{1e5, -0.2});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("neo-hookean needs lambda >= 0 (nu >= 0)"),
              std::string::npos);
  }
  EXPECT_NO_THROW(make_force_model("neo-hookean", topo, tet.vertices, Material{1e5, 0.0}));
}

}  // namespace
}  // namespace softbody
