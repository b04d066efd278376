#include "engine/forces/force_model.h"

#include <gtest/gtest.h>

#include "engine/forces/energy_density.h"
#include "engine/forces/stvk_edge.h"
#include "engine/forces/verification.h"
#include "engine/mesh/box_generator.h"
#include "engine/mesh/validation.h"
#include "engine/tests/test_support.h"

namespace softbody {
namespace {

const Material kMaterial{2.5e5, 0.42};

std::shared_ptr<const MeshTopology> topology_of(const TetMesh& m) {
  return std::make_shared<const MeshTopology>(m);
}

TetMesh small_box() {
  return make_box_mesh({.nx = 3, .ny = 2, .nz = 2, .size = Vec3(0.3, 0.2, 0.2)});
}

struct ModelCase {
  std::string model;
  VolumetricKind volumetric;
};

std::vector<ModelCase> all_model_cases() {
  std::vector<ModelCase> cases;
  for (const std::string& m : force_model_names()) {
    for (VolumetricKind v :
         {VolumetricKind::kNone, VolumetricKind::kCubic, VolumetricKind::kQuadratic})
      cases.push_back({m, v});
  }
  return cases;
}

std::string case_name(const testing::TestParamInfo<ModelCase>& param_info) {
  std::string name =
      param_info.param.model + "_" + volumetric_kind_name(param_info.param.volumetric);
  for (char& c : name) {
    if (c == '-') c = '_';
  }
  return name;
}

class EveryModel : public testing::TestWithParam<ModelCase> {};

TEST_P(EveryModel, ForcesAndStiffnessMatchFiniteDifferences) {
  std::vector<TetMesh> meshes = {small_box(), load_mesh(test::test_mesh("knight.node")).mesh};
  for (const TetMesh& mesh : meshes) {
    auto model = make_force_model(GetParam().model, topology_of(mesh), mesh.vertices, kMaterial,
                                  GetParam().volumetric);
    for (unsigned seed : {1u, 2u}) {
      Vec3Array p = random_smooth_deformation(mesh.vertices, 0.25, seed);
      EXPECT_LT(force_vs_energy_error(*model, p), 1e-6)
          << "seed " << seed << ", " << mesh.num_tets() << " tets";
      EXPECT_LT(stiffness_vs_force_error(*model, p), 1e-6)
          << "seed " << seed << ", " << mesh.num_tets() << " tets";
    }
  }
}

// The contact stage asks for K alone at the free motion's end (BdfNewton::evaluate_stiffness_at):
// every law gives the same K without its forces.
TEST_P(EveryModel, StiffnessAloneIsTheStiffnessEvaluatedWithTheForces) {
  TetMesh mesh = small_box();
  auto topo = topology_of(mesh);
  auto model =
      make_force_model(GetParam().model, topo, mesh.vertices, kMaterial, GetParam().volumetric);
  const Vec3Array p = random_smooth_deformation(mesh.vertices, 0.25, 4);
  const Eigen::MatrixXd alone = model->evaluate(p, kEvalStiffness).K.to_dense(*topo);
  const Eigen::MatrixXd with_forces = model->evaluate(p, kEvalAll).K.to_dense(*topo);
  EXPECT_GT(alone.norm(), 0);
  EXPECT_LE((alone - with_forces).norm(), 1e-14 * with_forces.norm());
}

TEST_P(EveryModel, RigidMotionGivesNoForceNoTorqueNoEnergy) {
  TetMesh mesh = small_box();
  auto model = make_force_model(GetParam().model, topology_of(mesh), mesh.vertices, kMaterial,
                                GetParam().volumetric);
  // Force scale of a real deformation, to judge "zero" against.
  ForceOutput deformed = model->evaluate(random_smooth_deformation(mesh.vertices, 0.1, 3));
  double scale = 0;
  for (const Vec3& f : deformed.f) scale = std::max(scale, f.norm());
  Vec3Array p = random_rigid_motion(mesh.vertices, 5);
  ForceOutput out = model->evaluate(p);
  Vec3 net = Vec3::Zero(), torque = Vec3::Zero();
  for (size_t i = 0; i < p.size(); ++i) {
    EXPECT_LT(out.f[i].norm(), 1e-11 * scale) << "vertex " << i;
    net += out.f[i];
    torque += p[i].cross(out.f[i]);
  }
  EXPECT_LT(net.norm(), 1e-10 * scale);
  EXPECT_LT(torque.norm(), 1e-10 * scale);
  EXPECT_LT(std::abs(out.energy), 1e-12 * deformed.energy);
}

TEST_P(EveryModel, NetForceAndTorqueVanishUnderAnyDeformation) {
  // Internal forces of a hyperelastic energy invariant under rigid motions are self-equilibrated.
  TetMesh mesh = small_box();
  auto model = make_force_model(GetParam().model, topology_of(mesh), mesh.vertices, kMaterial,
                                GetParam().volumetric);
  Vec3Array p = random_smooth_deformation(mesh.vertices, 0.3, 11);
  ForceOutput out = model->evaluate(p);
  Vec3 net = Vec3::Zero(), torque = Vec3::Zero();
  double scale = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    net += out.f[i];
    torque += p[i].cross(out.f[i]);
    scale += out.f[i].norm() * (1 + p[i].norm());
  }
  EXPECT_LT(net.norm(), 1e-12 * scale);
  EXPECT_LT(torque.norm(), 1e-12 * scale);
}

TEST_P(EveryModel, EnergyDensitiesSumToTheTotalEnergy) {
  TetMesh mesh = small_box();
  auto model = make_force_model(GetParam().model, topology_of(mesh), mesh.vertices, kMaterial,
                                GetParam().volumetric);
  Vec3Array p = random_smooth_deformation(mesh.vertices, 0.3, 12);
  std::vector<double> density =
      strain_energy_density(GetParam().model, mesh, kMaterial, GetParam().volumetric, p);
  double total = 0;
  for (size_t t = 0; t < mesh.tets.size(); ++t)
    total += density[t] * six_signed_volume(mesh.vertices, mesh.tets[t]) / 6;
  const double energy = model->evaluate(p, kEvalEnergy).energy;
  EXPECT_NEAR(total, energy, 1e-11 * energy);
}

INSTANTIATE_TEST_SUITE_P(Models, EveryModel, testing::ValuesIn(all_model_cases()), case_name);

// Seed 003's central claim: the edge-based form equals the total-Lagrangian one.
TEST(StvkEdge, EqualsTotalLagrangianOnEveryMesh) {
  for (const std::string& path : test::all_test_meshes()) {
    LoadedMesh mesh = load_mesh(path);
    auto topo = topology_of(mesh.mesh);
    for (VolumetricKind vol : {VolumetricKind::kNone, VolumetricKind::kQuadratic}) {
      auto edge = make_force_model("stvk-edge", topo, mesh.mesh.vertices, kMaterial, vol);
      auto tl = make_force_model("stvk-tl", topo, mesh.mesh.vertices, kMaterial, vol);
      Vec3Array p = random_smooth_deformation(mesh.mesh.vertices, 0.3, 17);
      ModelDifference d = compare_models(*edge, *tl, p);
      EXPECT_LT(d.forces, 1e-10) << path;
      EXPECT_LT(d.stiffness, 1e-10) << path;
      EXPECT_LT(d.energy, 1e-10) << path;
    }
  }
}

TEST(StvkEdge, FoldedSliversWouldLoseAccuracy) {
  // The reason slivers are evaluated element-wise: folding them into edge constants loses
  // accuracy ~ (aspect ratio)^2. Show that the element-wise treatment is what keeps 1e-10.
  LoadedMesh mesh = load_mesh(test::test_mesh("bunny.mesh"));
  auto topo = topology_of(mesh.mesh);
  StvkEdgeModel folded(topo, mesh.mesh.vertices, kMaterial, true, /*sliver_quality=*/0.0);
  StvkEdgeModel hybrid(topo, mesh.mesh.vertices, kMaterial, true);
  auto tl = make_force_model("stvk-tl", topo, mesh.mesh.vertices, kMaterial);
  Vec3Array p = random_smooth_deformation(mesh.mesh.vertices, 0.3, 17);
  EXPECT_TRUE(folded.sliver_tets().empty());
  EXPECT_GT(hybrid.sliver_tets().size(), 0u);
  EXPECT_LT(hybrid.sliver_tets().size(), mesh.mesh.tets.size() / 25);
  double folded_error = compare_models(folded, *tl, p).forces;
  double hybrid_error = compare_models(hybrid, *tl, p).forces;
  EXPECT_LT(hybrid_error, 1e-12);
  EXPECT_GT(folded_error, 100 * hybrid_error);
}

TEST(StvkEdge, NsnIsTheEdgeTermAlone) {
  // NSN energy = 1/4 sum_E L(E) zeta(E)^2 with the same L(E) as the full model (seed 003 eq. 24).
  TetMesh mesh = small_box();
  auto topo = topology_of(mesh);
  StvkEdgeModel full(topo, mesh.vertices, kMaterial, true, 0.0);
  auto nsn = make_force_model("nsn", topo, mesh.vertices, kMaterial);
  Vec3Array p = random_smooth_deformation(mesh.vertices, 0.2, 4);
  double expected = 0;
  for (Index e = 0; e < topo->num_edges(); ++e) {
    const EdgeVertices& ev = topo->edges()[static_cast<size_t>(e)];
    double zeta = (p[static_cast<size_t>(ev[0])] - p[static_cast<size_t>(ev[1])]).squaredNorm() -
                  full.edge_h()[static_cast<size_t>(e)];
    expected += 0.25 * full.edge_l()[static_cast<size_t>(e)] * zeta * zeta;
  }
  double nsn_energy = nsn->evaluate(p, kEvalEnergy).energy;
  EXPECT_NEAR(nsn_energy, expected, 1e-12 * expected);
  EXPECT_GT(std::abs(full.evaluate(p, kEvalEnergy).energy - nsn_energy), 1e-3 * nsn_energy);
}

// Under a homogeneous deformation F every linear tetrahedron has the same strain, so the energy is
// V w(F) exactly and the total force on the x = L face is the first Piola-Kirchhoff traction.
TEST(ForceModels, HomogeneousStretchMatchesContinuumMechanics) {
  const Vec3 size(0.4, 0.2, 0.3);
  TetMesh mesh = make_box_mesh({.nx = 4, .ny = 2, .nz = 3, .size = size});
  auto topo = topology_of(mesh);
  const double a = 1.3, b = 0.9, c = 0.95;
  const Mat3 f = Vec3(a, b, c).asDiagonal();
  Vec3Array p(mesh.vertices.size());
  for (size_t i = 0; i < p.size(); ++i) p[i] = f * mesh.vertices[i];
  const double volume = size.prod(), lambda = kMaterial.lambda(), mu = kMaterial.mu();
  const Mat3 e = 0.5 * (f.transpose() * f - Mat3::Identity());
  const double w_stvk = mu * e.squaredNorm() + 0.5 * lambda * e.trace() * e.trace();
  const Mat3 s_stvk = 2 * mu * e + lambda * e.trace() * Mat3::Identity();
  const Mat3 strain = f - Mat3::Identity();  // S - I for a stretch without rotation
  const double w_corot = mu * strain.squaredNorm() + 0.5 * lambda * strain.trace() * strain.trace();
  const Mat3 p_corot = 2 * mu * strain + lambda * strain.trace() * Mat3::Identity();
  struct Expected {
    std::string model;
    double w;
    Mat3 piola;
  };
  for (const Expected& x :
       {Expected{"stvk-edge", w_stvk, f * s_stvk}, Expected{"stvk-tl", w_stvk, f * s_stvk},
        Expected{"corotational", w_corot, p_corot}}) {
    auto model = make_force_model(x.model, topo, mesh.vertices, kMaterial);
    ForceOutput out = model->evaluate(p);
    EXPECT_NEAR(out.energy, volume * x.w, 1e-12 * volume * x.w) << x.model;
    Vec3 face_force = Vec3::Zero();
    for (Index v : mesh.vertex_sets.at("xmax")) face_force += out.f[static_cast<size_t>(v)];
    // f = dW/dp is the force the body exerts on whatever holds the face: P n A.
    Vec3 traction = x.piola * Vec3::UnitX() * (size.y() * size.z());
    EXPECT_LT((face_force - traction).norm(), 1e-10 * traction.norm()) << x.model;
  }
}

TEST(ForceModels, CorotationalAndStvkAgreeAtSmallStrain) {
  // Both reduce to linear elasticity for small strains, whatever the rotation.
  TetMesh mesh = small_box();
  auto topo = topology_of(mesh);
  auto corot = make_force_model("corotational", topo, mesh.vertices, kMaterial);
  auto stvk = make_force_model("stvk-edge", topo, mesh.vertices, kMaterial);
  for (double scale : {1e-3, 1e-5}) {
    Vec3Array p = random_smooth_deformation(mesh.vertices, scale, 8);
    double diff = relative_difference(corot->evaluate(p).f, stvk->evaluate(p).f);
    EXPECT_LT(diff, 30 * scale)
        << scale;  // the difference is the geometric nonlinearity, O(strain)
  }
}

TEST(ForceModels, StiffnessAtRestIsSymmetricPositiveSemidefinite) {
  TetMesh mesh = make_box_mesh({.nx = 2, .ny = 2, .nz = 2});
  auto topo = topology_of(mesh);
  for (const std::string& name : force_model_names()) {
    Eigen::MatrixXd k = make_force_model(name, topo, mesh.vertices, kMaterial)
                            ->evaluate(mesh.vertices)
                            .K.to_dense(*topo);
    EXPECT_LT((k - k.transpose()).norm(), 1e-12 * k.norm()) << name;
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(k);
    // Six rigid-body modes at zero, the rest positive (NSN: a spring network may have more zero
    // modes).
    EXPECT_GT(eig.eigenvalues().minCoeff(), -1e-9 * eig.eigenvalues().maxCoeff()) << name;
    if (name != "nsn") {
      EXPECT_GT(eig.eigenvalues()[6], 1e-6 * eig.eigenvalues().maxCoeff()) << name;
    }
  }
}

TEST(ForceModels, UnknownNameIsAClearError) {
  TetMesh mesh = small_box();
  try {
    make_force_model("ogden", topology_of(mesh), mesh.vertices, kMaterial);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("unknown force model 'ogden'"), std::string::npos);
  }
  EXPECT_THROW(make_force_model("stvk-edge", topology_of(mesh), mesh.vertices, Material{1e5, 0.5}),
               std::invalid_argument);
}

}  // namespace
}  // namespace softbody
