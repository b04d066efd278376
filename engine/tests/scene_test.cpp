#include "engine/scene/scene.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <numbers>

#include <filesystem>

#include "engine/forces/constant_q.h"
#include "engine/forces/nodal_volume.h"
#include "engine/sim/integrator.h"
#include "engine/tests/test_support.h"

namespace softbody {
namespace {

const std::string kScenes = std::string(SOFTBODY_PROJECT_MESHES) + "/../scenes";

nlohmann::json minimal_scene() {
  return nlohmann::json::parse(R"({
    "mesh": {"box": {"cells": [2, 1, 1], "size": [0.2, 0.1, 0.1]}},
    "material": {"E": 1e5, "nu": 0.3, "density": 1000}
  })");
}

std::string build_error(const nlohmann::json& doc) {
  try {
    build_scene(doc, "test.json", ".");
  } catch (const SceneError& e) {
    return e.what();
  }
  return "";
}

TEST(Scene, EveryShippedSceneLoads) {
  for (const auto& entry : std::filesystem::directory_iterator(kScenes)) {
    if (entry.path().extension() != ".json") continue;
    Scene s = load_scene(entry.path().string());
    EXPECT_GT(s.model->topology->num_tets(), 0) << entry.path();
    EXPECT_GT(s.duration, 0) << entry.path();
    EXPECT_EQ(s.model->mass.size(), s.model->rest.size()) << entry.path();
  }
}

TEST(Scene, MillimetreUnitsAreConvertedToSi) {
  Scene s = load_scene(kScenes + "/crush.json");
  EXPECT_NEAR(s.body->material.youngs_modulus, 1e6, 1e-6);
  EXPECT_NEAR(s.body->material.density, 1000, 1e-9);
  EXPECT_NEAR(s.model->gravity.y(), -9.8, 1e-12);
  EXPECT_NEAR(s.model->options.correction_speed, 0.1, 1e-15);
  ASSERT_EQ(s.model->obstacles.size(), 2u);
  EXPECT_NEAR(s.model->obstacles[0].contact.stiffness, 1e6, 1e-6);
  EXPECT_NEAR(s.model->obstacles[0].contact.damping, 1e4, 1e-8);
  EXPECT_NEAR(s.model->obstacles[0].contact.friction, 1e7, 1e-5);
  EXPECT_NEAR(s.model->obstacles[1].trajectory->position(0).y(), 0.32, 1e-12);  // eq. 34 at t = 0
  double lo = 1, hi = -1;
  for (const Vec3& x : s.model->rest) {
    lo = std::min(lo, x.y());
    hi = std::max(hi, x.y());
  }
  EXPECT_NEAR(lo, 0.0, 1e-12);
  EXPECT_NEAR(hi - lo, 0.15, 1e-12);  // fit_height 150 mm
  EXPECT_FALSE(s.model->anchors.empty());
}

TEST(Scene, UnknownKeysAndWrongTypesNameTheirJsonPath) {
  nlohmann::json doc = minimal_scene();
  doc["material"]["Young"] = 3;
  EXPECT_NE(build_error(doc).find("test.json: /material/Young: unknown key"), std::string::npos)
      << build_error(doc);
  doc = minimal_scene();
  doc["dt"] = "fast";
  EXPECT_NE(build_error(doc).find("/dt: expected a number, got string"), std::string::npos)
      << build_error(doc);
  doc = minimal_scene();
  doc["solver"] = {{"type", "minres"}};
  EXPECT_NE(build_error(doc).find(
                "/solver/type: unknown solver 'minres' (auto, direct, cg, bicgstab, qmr, gmres)"),
            std::string::npos)
      << build_error(doc);
  doc = minimal_scene();
  doc["solver"] = {{"refactor", "later"}};
  EXPECT_NE(
      build_error(doc).find("/solver/refactor: unknown refactor mode 'later' (sync, background)"),
      std::string::npos)
      << build_error(doc);
  doc = minimal_scene();
  doc["solver"] = {{"tolerance", 2}};
  EXPECT_NE(build_error(doc).find("/solver/tolerance: must lie in (0, 1)"), std::string::npos)
      << build_error(doc);
  doc = minimal_scene();
  doc["fixed"] = nlohmann::json::array({{{"set", "top"}}});
  EXPECT_NE(build_error(doc).find("/fixed/0/set: the mesh has no vertex set 'top'"),
            std::string::npos)
      << build_error(doc);
  doc = minimal_scene();
  doc["obstacles"] = nlohmann::json::array(
      {{{"type", "plate"},
        {"half_extent", {1, 1}},
        {"trajectory",
         {{"piecewise", {{{"from", 0}, {"to", 1}, {"position", {"0", "1+", "0"}}}}}}}}});
  EXPECT_NE(build_error(doc).find("/obstacles/0/trajectory"), std::string::npos)
      << build_error(doc);
  doc = minimal_scene();
  doc["material"]["nu"] = 0.5;
  EXPECT_NE(build_error(doc).find("/material"), std::string::npos) << build_error(doc);
  doc = minimal_scene();
  doc["mesh"] = {{"file", "missing.msh"}};
  EXPECT_NE(build_error(doc).find("/mesh/file: ./missing.msh: cannot open file"), std::string::npos)
      << build_error(doc);
  EXPECT_EQ(build_error(minimal_scene()), "");
}

TEST(Scene, IntegratorTypeAndNewtonSettings) {
  nlohmann::json doc = minimal_scene();
  doc["integrator"] = {
      {"type", "bdf2"},
      {"newton",
       {{"tolerance", 1e-8}, {"forcing", 0.05}, {"max_iterations", 7}, {"descent_iterations", 5}}}};
  Scene s = build_scene(doc, "t", ".");
  EXPECT_EQ(s.model->options.type, IntegratorType::kBdf2);
  EXPECT_DOUBLE_EQ(s.model->options.newton.tolerance, 1e-8);
  EXPECT_DOUBLE_EQ(s.model->options.newton.forcing, 0.05);
  EXPECT_EQ(s.model->options.newton.max_iterations, 7);
  EXPECT_EQ(s.model->options.newton.descent_iterations, 5);
  EXPECT_EQ(build_scene(minimal_scene(), "t", ".").model->options.newton.descent_iterations, 3);
  // The default: Newton on the nonlinear step (issue 21 §3b).
  EXPECT_EQ(build_scene(minimal_scene(), "t", ".").model->options.type,
            IntegratorType::kImplicitEuler);

  doc["integrator"] = {{"type", "verlet"}};
  EXPECT_NE(
      build_error(doc).find(
          "/integrator/type: unknown integrator 'verlet' "
          "(linearized-backward-euler, implicit-euler, bdf2, bdf3, vbd, projective, quasi-newton, "
          "xpbd)"),
      std::string::npos)
      << build_error(doc);
  doc["integrator"] = {{"newton", {{"descent_iterations", -1}}}};
  EXPECT_NE(build_error(doc).find("/integrator/newton/descent_iterations: must be in [0, 1000]"),
            std::string::npos)
      << build_error(doc);
  doc["integrator"] = {{"newton", {{"forcing", 1.5}}}};
  EXPECT_NE(build_error(doc).find("/integrator/newton/forcing: must be in [1e-14, 1)"),
            std::string::npos)
      << build_error(doc);
  doc["integrator"] = {{"newton", {{"max_iterations", 0}}}};
  EXPECT_NE(build_error(doc).find("/integrator/newton/max_iterations: must be in [1, 1000]"),
            std::string::npos)
      << build_error(doc);
  doc["integrator"] = {{"newton", {{"tolerence", 1e-6}}}};
  EXPECT_NE(build_error(doc).find("/integrator/newton/tolerence: unknown key"), std::string::npos)
      << build_error(doc);
  // Inversion alleviation (seed 004 §5): off by default, sweeps in [0, 100].
  EXPECT_EQ(build_scene(minimal_scene(), "t", ".").model->options.alleviation_sweeps, 0);
  doc["integrator"] = {{"alleviation", {{"sweeps", 5}}}};
  EXPECT_EQ(build_scene(doc, "t", ".").model->options.alleviation_sweeps, 5);
  doc["integrator"] = {{"alleviation", {{"sweeps", -1}}}};
  EXPECT_NE(build_error(doc).find("/integrator/alleviation/sweeps: must be an integer in [0, 100]"),
            std::string::npos)
      << build_error(doc);
  // Vertex Block Descent: sweeps and Chebyshev's rho; a law without per-element energy is refused
  // at /integrator/type by name (the default law is edge-based StVK).
  doc["integrator"] = {{"type", "vbd"}, {"iterations", 25}, {"chebyshev", 0.9}};
  EXPECT_NE(build_error(doc).find("/integrator/type: integrator 'vbd' needs a material whose "
                                  "energy is a sum over tetrahedra"),
            std::string::npos)
      << build_error(doc);
  EXPECT_NE(build_error(doc).find("'stvk-edge' as configured has none"), std::string::npos);
  nlohmann::json vbd = doc;
  vbd["material"]["model"] = "corotational";
  const Scene s_vbd = build_scene(vbd, "t", ".");
  EXPECT_EQ(s_vbd.model->options.type, IntegratorType::kVbd);
  EXPECT_EQ(s_vbd.model->options.iterations, 25);
  EXPECT_DOUBLE_EQ(s_vbd.model->options.chebyshev, 0.9);
  vbd["material"]["pressure"] = "nodal";
  EXPECT_NE(build_error(vbd).find("/integrator/type: integrator 'vbd' needs"), std::string::npos)
      << build_error(vbd);
  vbd["material"]["pressure"] = "element";
  vbd["integrator"] = {{"type", "vbd"}, {"iterations", 0}};
  EXPECT_NE(build_error(vbd).find("/integrator/iterations: must be an integer in [1, 10000]"),
            std::string::npos)
      << build_error(vbd);
  vbd["integrator"] = {{"type", "vbd"}, {"chebyshev", 1.0}};
  EXPECT_NE(build_error(vbd).find("/integrator/chebyshev: must lie in [0, 1)"), std::string::npos)
      << build_error(vbd);
  // Projective dynamics and quasi-Newton take every elastic law, edge-based StVK included, and
  // refuse viscous materials at /integrator/type.
  for (const char* type : {"projective", "quasi-newton"}) {
    nlohmann::json pd = minimal_scene();
    pd["integrator"] = {{"type", type}, {"iterations", 7}};
    const Scene s_pd = build_scene(pd, "t", ".");
    EXPECT_EQ(integrator_type_name(s_pd.model->options.type), std::string(type));
    EXPECT_EQ(s_pd.model->options.iterations, 7);
    EXPECT_GT(s_pd.model->material.mu(), 0);  // the matrix's weight comes from it
    pd["material"]["viscoelastic"] = {{"prony", {{{"mu", 100}, {"tau", 0.1}}}}};
    EXPECT_NE(build_error(pd).find("/integrator/type: integrator '" + std::string(type) +
                                   "' does not support viscous materials"),
              std::string::npos)
        << build_error(pd);
  }
  // XPBD: substeps (any integrator honours them), and only laws that are sums of squared
  // constraints, without a volumetric term.
  nlohmann::json xpbd = minimal_scene();
  xpbd["integrator"] = {{"type", "xpbd"}, {"iterations", 2}, {"substeps", 8}};
  EXPECT_NE(build_error(xpbd).find("/integrator/type: integrator 'xpbd' needs a material whose "
                                   "energy is a sum of squared constraints"),
            std::string::npos)
      << build_error(xpbd);
  xpbd["material"]["model"] = "snh";
  xpbd["material"]["volumetric"] = "none";
  const Scene s_xpbd = build_scene(xpbd, "t", ".");
  EXPECT_EQ(s_xpbd.model->options.type, IntegratorType::kXpbd);
  EXPECT_EQ(s_xpbd.model->options.iterations, 2);
  EXPECT_EQ(s_xpbd.model->options.substeps, 8);
  EXPECT_EQ(build_scene(minimal_scene(), "t", ".").model->options.substeps, 1);
  xpbd["integrator"]["substeps"] = 0;
  EXPECT_NE(build_error(xpbd).find("/integrator/substeps: must be an integer in [1, 1000]"),
            std::string::npos)
      << build_error(xpbd);
}

// An anchor's `release`: it holds the body up until then, and the body falls after it.
TEST(Scene, AnAnchorLetsGoAtItsReleaseTime) {
  nlohmann::json doc = minimal_scene();
  doc["dt"] = 0.01;
  doc["anchors"] = {{{"select", {{"set", "ymax"}}}, {"stiffness", 1e4}, {"release", 0.1}}};
  const Scene scene = build_scene(doc, "t", ".");
  ASSERT_FALSE(scene.model->anchors.empty());
  EXPECT_DOUBLE_EQ(scene.model->anchors.front().release, 0.1);
  SimulationState state = rest_state(*scene.model);
  auto integrator = make_integrator(scene.model);
  const auto lowest = [&] {
    double y = INFINITY;
    for (const Vec3& p : state.p) y = std::min(y, p.y());
    return y;
  };
  const double start = lowest();
  for (int k = 0; k < 10; ++k) integrator->step(state);  // held: it sags, it does not fall
  const double held = start - lowest();
  EXPECT_LT(held, 0.01);
  for (int k = 0; k < 20; ++k) integrator->step(state);  // 0.2 s of free fall: ~0.2 m
  EXPECT_GT(start - lowest(), 0.1);
  doc["anchors"][0]["release"] = 0;
  EXPECT_NE(build_error(doc).find("/anchors/0/release: must be > 0"), std::string::npos)
      << build_error(doc);
}

// cnh_threshold belongs to the clamped Neo-Hooke law, inside (0, 1).
TEST(Scene, ClampedNeoHookeThreshold) {
  nlohmann::json doc = minimal_scene();
  doc["material"]["model"] = "cnh";
  EXPECT_DOUBLE_EQ(build_scene(doc, "t", ".").body->material.cnh_threshold, 0.5);
  doc["material"]["cnh_threshold"] = 0.1;
  EXPECT_DOUBLE_EQ(build_scene(doc, "t", ".").body->material.cnh_threshold, 0.1);
  doc["material"]["cnh_threshold"] = 1.5;
  EXPECT_NE(build_error(doc).find("/material/cnh_threshold: must lie in (0, 1)"), std::string::npos)
      << build_error(doc);
  doc["material"]["model"] = "corotational";
  doc["material"]["cnh_threshold"] = 0.2;
  EXPECT_NE(build_error(doc).find("/material/cnh_threshold: only for model \"cnh\""),
            std::string::npos)
      << build_error(doc);
}

// initial_velocity: seeded, the same for the same seed, zero on fixed vertices, in scene units.
TEST(Scene, RandomInitialVelocities) {
  nlohmann::json doc = minimal_scene();
  EXPECT_TRUE(build_scene(doc, "t", ".").model->initial_velocity.empty());
  doc["units"] = "mm";
  doc["mesh"]["box"]["size"] = {200, 100, 100};
  doc["fixed"] = {{{"set", "xmin"}}};
  doc["initial_velocity"] = {{"random", 500}, {"seed", 7}};  // 0.5 m/s
  const Scene a = build_scene(doc, "t", ".");
  const SimulationState state = rest_state(*a.model);
  double fastest_component = 0;
  for (size_t i = 0; i < state.v.size(); ++i) {
    if (a.model->fixed[i]) {
      EXPECT_EQ(state.v[i], Vec3::Zero());
      continue;
    }
    fastest_component = std::max(fastest_component, state.v[i].cwiseAbs().maxCoeff());
  }
  EXPECT_LE(fastest_component, 0.5);
  EXPECT_GT(fastest_component, 0.1);
  EXPECT_EQ(build_scene(doc, "t", ".").model->initial_velocity, a.model->initial_velocity);
  doc["initial_velocity"]["seed"] = 8;
  EXPECT_NE(build_scene(doc, "t", ".").model->initial_velocity, a.model->initial_velocity);
  doc["initial_velocity"]["random"] = -1;
  EXPECT_NE(build_error(doc).find("/initial_velocity/random: must be >= 0"), std::string::npos)
      << build_error(doc);
}

// initial_velocity's rigid motion: a thrown, spinning body (linear in scene units, angular in
// rad/s about the rest centroid): each vertex's velocity is linear + omega x (x - c).
TEST(Scene, ThrownAndSpinningInitialVelocity) {
  nlohmann::json doc = minimal_scene();
  doc["units"] = "mm";
  doc["mesh"]["box"] = {{"cells", {2, 1, 1}}, {"size", {200, 100, 100}}, {"origin", {0, 0, 0}}};
  doc["initial_velocity"] = {{"linear", {1000, 0, 0}}, {"angular", {0, 0, 2}}};
  const Scene s = build_scene(doc, "t", ".");
  const Vec3 centroid(0.1, 0.05, 0.05);  // m
  ASSERT_EQ(s.model->initial_velocity.size(), s.model->rest.size());
  for (size_t i = 0; i < s.model->rest.size(); ++i) {
    const Vec3 expected = Vec3(1, 0, 0) + Vec3(0, 0, 2).cross(s.model->rest[i] - centroid);
    EXPECT_LT((s.model->initial_velocity[i] - expected).norm(), 1e-12) << i;
  }
}

TEST(Scene, ViscoelasticMaterial) {
  nlohmann::json doc = minimal_scene();
  doc["material"]["viscoelastic"] = {
      {"prony", {{{"mu", 3000}, {"tau", 0.05}}, {{"mu", 1500}, {"tau", 2}}}}};
  doc["material"]["rate_damping"] = {{"mu", 4}};
  Scene s = build_scene(doc, "t", ".");
  ASSERT_TRUE(s.model->viscous);
  const ViscousMaterial& v = s.model->viscous->material();
  ASSERT_EQ(v.prony.size(), 2u);
  EXPECT_DOUBLE_EQ(v.prony[1].mu, 1500);
  EXPECT_DOUBLE_EQ(v.prony[1].tau, 2);
  EXPECT_DOUBLE_EQ(v.bulk_viscosity, s.body->material.lambda() * 0.01);  // lambda / 100
  EXPECT_DOUBLE_EQ(v.rate_mu, 4);
  EXPECT_EQ(v.rate_lambda, 0);
  EXPECT_EQ(s.model->viscous->memory_size(),
            12u * static_cast<size_t>(s.model->topology->num_tets()));
  EXPECT_FALSE(build_scene(minimal_scene(), "t", ".").model->viscous);

  // In millimetres a viscosity in N s / mm^2 is a million times one in Pa s.
  nlohmann::json mm = doc;
  mm["units"] = "mm";
  mm["material"]["viscoelastic"]["bulk_viscosity"] = 1e-4;
  EXPECT_NEAR(build_scene(mm, "t", ".").model->viscous->material().bulk_viscosity, 100, 1e-9);

  nlohmann::json bad = doc;
  bad["material"]["viscoelastic"]["prony"][1]["tau"] = 0;
  // The first three terms are live settings: the settings table's verdict, as UpdateSettings'.
  EXPECT_NE(build_error(bad).find("/material/viscoelastic/prony/1/tau: must lie in (0, 1e+06] s, "
                                  "not 0"),
            std::string::npos)
      << build_error(bad);
  // A fourth term (scene only, not live) gets the same verdict.
  bad = doc;
  while (bad["material"]["viscoelastic"]["prony"].size() < 4)
    bad["material"]["viscoelastic"]["prony"].push_back({{"mu", 100}, {"tau", 1}});
  bad["material"]["viscoelastic"]["prony"][3]["tau"] = 0;
  EXPECT_NE(build_error(bad).find("/material/viscoelastic/prony/3/tau: must lie in (0, 1e+06] s, "
                                  "not 0"),
            std::string::npos)
      << build_error(bad);
  bad = doc;
  bad["material"]["viscoelastic"]["prony"] = nlohmann::json::array();
  EXPECT_NE(build_error(bad).find("/material/viscoelastic/prony: needs at least one"),
            std::string::npos)
      << build_error(bad);
  bad = doc;
  bad["material"]["rate_damping"]["mu"] = -1;
  EXPECT_NE(build_error(bad).find("/material/rate_damping/mu: must lie in [0, 1e+09] Pa s, not -1"),
            std::string::npos)
      << build_error(bad);
  bad = doc;
  bad["material"]["viscoelastic"]["prony"][0]["G"] = 1;
  EXPECT_NE(build_error(bad).find("/material/viscoelastic/prony/0/G: unknown key"),
            std::string::npos)
      << build_error(bad);
  bad = doc;
  bad["damping"] = {{"beta", 0.01}};
  EXPECT_NE(build_error(bad).find("/damping/beta: must be 0 with material.viscoelastic"),
            std::string::npos)
      << build_error(bad);
}

// pressure: "auto" holds the volume per vertex from nu = 0.45 on, "element" and "nodal" choose;
// nodal pressure widens the matrix pattern to second neighbours and keeps the element law's shear.
TEST(Scene, PressureMode) {
  nlohmann::json doc = minimal_scene();
  auto nodal = [](const Scene& s) {
    return dynamic_cast<const ModelWithNodalVolume*>(s.model->forces.get()) != nullptr;
  };
  Scene s = build_scene(doc, "t", ".");
  EXPECT_FALSE(s.body->nodal_pressure);
  EXPECT_FALSE(nodal(s));
  EXPECT_EQ(s.model->topology->coupling(), MatrixCoupling::kEdges);
  doc["material"]["nu"] = 0.45;
  s = build_scene(doc, "t", ".");
  EXPECT_TRUE(s.body->nodal_pressure);
  EXPECT_TRUE(nodal(s));
  EXPECT_EQ(s.model->topology->coupling(), MatrixCoupling::kSecondNeighbours);
  EXPECT_GT(s.model->topology->num_edges(), s.model->topology->num_mesh_edges());
  doc["material"]["pressure"] = "element";
  s = build_scene(doc, "t", ".");
  EXPECT_FALSE(nodal(s));
  doc["material"]["nu"] = 0.3;
  doc["material"]["pressure"] = "nodal";
  s = build_scene(doc, "t", ".");
  EXPECT_TRUE(nodal(s));
  EXPECT_NEAR(dynamic_cast<const ModelWithNodalVolume&>(*s.model->forces).term().kappa(),
              s.body->material.lambda() - nodal_split(s.body->material).lambda(), 1e-9);
  EXPECT_NEAR(nodal_split(s.body->material).mu(), s.body->material.mu(), 1e-9);
  doc["material"]["pressure"] = "mixed";
  EXPECT_NE(build_error(doc).find(
                "/material/pressure: unknown pressure mode 'mixed' (auto, element, nodal)"),
            std::string::npos)
      << build_error(doc);
}

// A section missing what it needs is the scene's error with its path, never a JSON library
// exception (an empty viscoelastic section used to escape as json.exception.out_of_range).
TEST(Scene, AnEmptyViscoelasticSectionIsAClearError) {
  nlohmann::json doc = minimal_scene();
  doc["material"]["viscoelastic"] = nlohmann::json::object();
  EXPECT_NE(build_error(doc).find("/material/viscoelastic: needs prony terms or constant_q"),
            std::string::npos)
      << build_error(doc);
  doc["material"].erase("viscoelastic");
  doc["loads"] = {{{"set", "xmax"}, {"traction", {1, 0, 0}}, {"curve", nullptr}}};
  EXPECT_NE(build_error(doc).find("/loads/0/curve: expected an array"), std::string::npos)
      << build_error(doc);
}

// constant_q: three Prony terms fitted to Q and |G| at a frequency; the fit's long-term shear
// modulus is the elastic law's (E = 2 mu_0 (1 + nu)), so the scene gives no E.
TEST(Scene, ConstantQMaterial) {
  nlohmann::json doc = minimal_scene();
  doc["material"].erase("E");
  doc["material"]["nu"] = 0.45;
  doc["material"]["viscoelastic"] = {{"constant_q", {{"Q", 4.8}, {"mu", 2500}, {"frequency", 2}}}};
  Scene s = build_scene(doc, "t", ".");
  ASSERT_TRUE(s.model->viscous);
  const ConstantQFit fit = fit_constant_q({.quality = 4.8, .modulus = 2500, .frequency = 2});
  EXPECT_EQ(s.model->viscous->material().prony.size(), fit.prony.size());
  EXPECT_NEAR(s.body->material.mu(), fit.long_term, 1e-9 * fit.long_term);
  EXPECT_NEAR(s.body->material.youngs_modulus, 2 * fit.long_term * 1.45, 1e-9);

  nlohmann::json bad = doc;
  bad["material"]["E"] = 1e4;
  EXPECT_NE(build_error(bad).find("/material/E: not with viscoelastic.constant_q"),
            std::string::npos)
      << build_error(bad);
  bad = doc;
  bad["material"]["viscoelastic"]["constant_q"]["frequency"] = 5e4;
  EXPECT_NE(build_error(bad).find("/material/viscoelastic/constant_q/frequency: must lie in"),
            std::string::npos)
      << build_error(bad);
  bad = doc;
  bad["material"]["viscoelastic"]["prony"] = {{{"mu", 1}, {"tau", 1}}};
  EXPECT_NE(build_error(bad).find("/material/viscoelastic/constant_q: give either prony or"),
            std::string::npos)
      << build_error(bad);
}

TEST(Scene, OverridesSetValuesByPath) {
  nlohmann::json doc = minimal_scene();
  apply_override(doc, "solver.type=cg", "t");
  apply_override(doc, "solver.max_iterations=7", "t");
  apply_override(doc, "integrator.correction=false", "t");
  Scene s = build_scene(doc, "t", ".");
  EXPECT_EQ(s.model->options.solver.type, SolverType::kCg);
  EXPECT_EQ(s.model->options.solver.max_iterations, 7);
  EXPECT_FALSE(s.model->options.correction);
  EXPECT_THROW(apply_override(doc, "solver.type", "t"), SceneError);
  EXPECT_THROW(apply_override(doc, "solver..type=cg", "t"), SceneError);
  EXPECT_THROW(apply_override(doc, "solver.type.x=1", "t"), SceneError);
  // Without a source the message starts at the override (the server adds "overrides[i]: ").
  try {
    apply_override(doc, "solver.type.x=1", "");
    ADD_FAILURE();
  } catch (const SceneError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--set solver.type.x: ", 0), 0u) << e.what();
  }
}

// A misspelt key is reported as unknown, before the required key it replaced is missed.
TEST(Scene, AMisspeltRequiredKeyIsReportedAsUnknown) {
  nlohmann::json doc = minimal_scene();
  doc["material"]["Young"] = doc["material"]["E"];
  doc["material"].erase("E");
  EXPECT_NE(build_error(doc).find("/material/Young: unknown key"), std::string::npos)
      << build_error(doc);
  doc = minimal_scene();
  doc["Mesh"] = doc["mesh"];
  doc.erase("mesh");
  EXPECT_NE(build_error(doc).find("/Mesh: unknown key"), std::string::npos) << build_error(doc);
  doc = minimal_scene();
  doc["material"].erase("E");
  EXPECT_NE(build_error(doc).find("/material/E: is required"), std::string::npos)
      << build_error(doc);
}

// A bad formula is named by its full JSON path, an object's own problem without a trailing '/'.
TEST(Scene, TrajectoryErrorsNameTheFullPath) {
  nlohmann::json doc = minimal_scene();
  doc["obstacles"] = nlohmann::json::parse(R"([{"type": "sphere", "radius": 0.01,
      "trajectory": {"piecewise": [{"from": 0, "to": 1, "position": ["0", "0", "0"]},
                                   {"from": 1, "to": 2, "position": ["t", "sin(", "0"]}]}}])");
  EXPECT_NE(build_error(doc).find(
                "test.json: /obstacles/0/trajectory/piecewise/1/position/1: formula 'sin(': "),
            std::string::npos)
      << build_error(doc);
  doc["obstacles"][0]["trajectory"]["piecewise"][1]["to"] = 0.5;
  EXPECT_NE(build_error(doc).find("/obstacles/0/trajectory/piecewise/1/to: must be greater than "
                                  "from"),
            std::string::npos)
      << build_error(doc);
  doc["obstacles"][0]["trajectory"] = nlohmann::json::object();
  EXPECT_NE(build_error(doc).find("test.json: /obstacles/0/trajectory: needs exactly one of"),
            std::string::npos)
      << build_error(doc);
}

// The message of the SceneError an override throws ("" if none).
std::string override_error(nlohmann::json& doc, const std::string& assignment) {
  try {
    apply_override(doc, assignment, "t");
  } catch (const SceneError& e) {
    return e.what();
  }
  return "";
}

// Array entries by index, dotted or as a JSON pointer: the forms the docs and --help show.
TEST(Scene, OverridesReachIntoArraysDottedOrAsJsonPointers) {
  nlohmann::json doc = minimal_scene();
  doc["gravity"] = {0, -9.81, 0};
  doc["obstacles"] = nlohmann::json::array(
      {{{"shape", "plane"}}, {{"shape", "sphere"}, {"contact", {{"friction", 0.5}}}}});
  EXPECT_EQ(override_error(doc, "gravity.1=0"), "");
  EXPECT_EQ(override_error(doc, "obstacles.1.contact.friction=0"), "");
  EXPECT_EQ(override_error(doc, "/obstacles/0/radius=0.02"), "");
  EXPECT_EQ(override_error(doc, "/material/E=2e4"), "");
  EXPECT_EQ(override_error(doc, "/dt=0.01"), "");
  EXPECT_EQ(override_error(doc, "/solver/a~1b~0c=1"), "");  // RFC 6901 escapes
  EXPECT_EQ(doc["gravity"], nlohmann::json({0, 0, 0}));
  EXPECT_EQ(doc["obstacles"][1]["contact"]["friction"], 0);
  EXPECT_EQ(doc["obstacles"][0]["radius"], 0.02);
  EXPECT_EQ(doc["material"]["E"], 2e4);
  EXPECT_EQ(doc["dt"], 0.01);
  EXPECT_EQ(doc["solver"]["a/b~c"], 1);
  EXPECT_EQ(override_error(doc, "gravity.3=1"), "");  // the size appends
  EXPECT_EQ(doc["gravity"].size(), 4u);

  EXPECT_EQ(override_error(doc, "obstacles.7.radius=1"),
            "t: --set obstacles.7.radius: '/obstacles' has 2 entries: index 7 is out of range");
  EXPECT_EQ(override_error(doc, "obstacles.first.radius=1"),
            "t: --set obstacles.first.radius: '/obstacles' is an array: 'first' is not an index");
  EXPECT_EQ(override_error(doc, "dt.x=1"),
            "t: --set dt.x: '/dt' is a number, not an object or array");
  EXPECT_NE(override_error(doc, "/=1").find("malformed path"), std::string::npos);
  EXPECT_NE(override_error(doc, "/a//b=1").find("malformed path"), std::string::npos);
  EXPECT_NE(override_error(doc, "/a~2=1").find("'~' must be followed by 0 or 1"),
            std::string::npos);
}

TEST(Scene, AnchorsSelectionAndFixedSets) {
  nlohmann::json doc = minimal_scene();
  doc["fixed"] = nlohmann::json::array({{{"set", "xmin"}}});
  doc["anchors"] = nlohmann::json::array(
      {{{"nearest", {0.2, 0.1, 0.1}},
        {"stiffness", 50},
        {"damping", 1},
        {"offset",
         {{"keyframes",
           {{{"t", 0}, {"position", {0, 0, 0}}}, {{"t", 1}, {"position", {0, 1, 0}}}}}}}}});
  Scene s = build_scene(doc, "t", ".");
  EXPECT_EQ(std::count(s.model->fixed.begin(), s.model->fixed.end(), 1), 4);
  ASSERT_EQ(s.model->anchors.size(), 1u);
  const Anchor& a = s.model->anchors[0];
  EXPECT_LT((s.body->mesh.vertices[static_cast<size_t>(a.vertex)] - Vec3(0.2, 0.1, 0.1)).norm(),
            1e-12);
  EXPECT_LT((a.target->position(0.5) - Vec3(0.2, 0.6, 0.1)).norm(), 1e-12);
}

}  // namespace
}  // namespace softbody

namespace softbody {
namespace {

// Constraint contact in a scene: obstacles' contact model and mu, the top-level contact section,
// and the errors that name the field at fault.
// A mesh obstacle: an OBJ beside the scene (relative paths resolve against the scene's
// directory), in the scene's units times its scale; a missing, malformed or open surface is an
// error naming the JSON path, the file and the fault.
TEST(Scene, AMeshObstacleReadsItsSurfaceAndNamesItsErrors) {
  test::TempDir dir;
  // A unit tetrahedron's surface, outward.
  dir.write("tool.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n");
  // A pyramid without its base.
  dir.write("open.obj",
            "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv .5 .5 1\nf 1 2 5\nf 2 3 5\nf 3 4 5\nf 4 1 5\n");
  dir.write("bad.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 7\n");
  nlohmann::json doc = minimal_scene();
  doc["units"] = "mm";
  doc["mesh"]["box"]["size"] = {200, 100, 100};
  doc["obstacles"] = nlohmann::json::parse(R"([
    {"type": "mesh", "file": "tool.obj", "scale": 10, "position": [0, 150, 0],
     "contact": {"model": "constraint", "mu": 0.2}}])");
  const std::string base = dir.file("");
  const Scene scene = build_scene(doc, "test.json", base);
  const Obstacle& tool = scene.model->obstacles.at(0);
  ASSERT_EQ(tool.shape, ObstacleShape::kMesh);
  ASSERT_TRUE(tool.surface);
  EXPECT_NEAR(tool.surface->volume(), std::pow(0.01, 3) / 6, 1e-15);  // 10 mm legs
  // 1 mm below the face y = 0 of the tool (its reference point is its first vertex).
  EXPECT_NEAR(signed_distance(tool, tool.trajectory->position(0), Vec3(0.002, 0.149, 0.002)), 0.001,
              1e-12);
  const auto error_of = [&](const std::function<void(nlohmann::json&)>& change) {
    nlohmann::json bad = doc;
    change(bad);
    try {
      build_scene(bad, "test.json", base);
    } catch (const SceneError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string missing = error_of([](auto& d) { d["obstacles"][0]["file"] = "none.obj"; });
  EXPECT_NE(missing.find("/obstacles/0/file: "), std::string::npos) << missing;
  EXPECT_NE(missing.find("none.obj: cannot open file"), std::string::npos) << missing;
  const std::string open = error_of([](auto& d) { d["obstacles"][0]["file"] = "open.obj"; });
  EXPECT_NE(open.find("/obstacles/0/file: "), std::string::npos) << open;
  EXPECT_NE(open.find("open.obj: the edge between vertices"), std::string::npos) << open;
  EXPECT_NE(open.find("not closed"), std::string::npos) << open;
  const std::string malformed = error_of([](auto& d) { d["obstacles"][0]["file"] = "bad.obj"; });
  EXPECT_NE(malformed.find("bad.obj:4: a face names vertex 7 but 3 are defined before it"),
            std::string::npos)
      << malformed;
  EXPECT_NE(error_of([](auto& d) {
              d["obstacles"][0].erase("file");
            }).find("/obstacles/0/file: a mesh obstacle needs a surface file (.obj or .stl)"),
            std::string::npos);
  EXPECT_NE(error_of([](auto& d) {
              d["obstacles"][0]["scale"] = 0;
            }).find("/obstacles/0/scale: must be > 0"),
            std::string::npos);
  EXPECT_NE(error_of([](auto& d) {
              d["obstacles"][0]["type"] = "blob";
            }).find("(halfspace, plate, sphere, capsule, mesh)"),
            std::string::npos);
  EXPECT_NE(error_of([](auto& d) {
              d["obstacles"][1] = {{"type", "sphere"}, {"radius", 5}, {"file", "tool.obj"}};
            }).find("/obstacles/1"),
            std::string::npos);
}

TEST(Scene, ReadsConstraintContactAndNamesItsErrors) {
  nlohmann::json doc = minimal_scene();
  doc["obstacles"] = nlohmann::json::parse(R"([
    {"type": "halfspace", "contact": {"stiffness": 1e4}},
    {"type": "sphere", "radius": 0.01, "position": [0, 0.2, 0],
     "contact": {"model": "constraint", "mu": 0.3}}])");
  doc["contact"] = {{"scheme", "fast"}, {"newton_iterations", 5}, {"compliance", "reused"}};
  const Scene scene = build_scene(doc, "test.json", ".");
  EXPECT_EQ(scene.model->obstacles[0].contact.model, ContactModel::kPenalty);
  EXPECT_EQ(scene.model->obstacles[1].contact.model, ContactModel::kConstraint);
  EXPECT_EQ(scene.model->obstacles[1].contact.mu, 0.3);
  EXPECT_EQ(scene.model->contact.scheme, ContactScheme::kFast);
  EXPECT_EQ(scene.model->contact.newton_iterations, 5);
  EXPECT_FALSE(scene.model->contact.fresh_compliance);

  const auto error_of = [&](const std::function<void(nlohmann::json&)>& change) {
    nlohmann::json bad = doc;
    change(bad);
    return build_error(bad);
  };
  EXPECT_NE(error_of([](auto& d) {
              d["obstacles"][1]["contact"]["mu"] = -1;
            }).find("/obstacles/1/contact/mu: must be >= 0"),
            std::string::npos);
  EXPECT_NE(error_of([](auto& d) {
              d["obstacles"][1]["contact"]["model"] = "glue";
            }).find("/obstacles/1/contact/model: must be penalty or constraint"),
            std::string::npos);
  EXPECT_NE(error_of([](auto& d) {
              d["obstacles"][1]["contact"]["stiffness"] = 1;
            }).find("/obstacles/1/contact/stiffness: applies to penalty contact only"),
            std::string::npos);
  EXPECT_NE(
      error_of([](auto& d) {
        d["solver"] = {{"type", "cg"}};
      }).find("/obstacles/1/contact/model: 'constraint' needs a factor: solver auto or direct"),
      std::string::npos);
  EXPECT_NE(error_of([](auto& d) {
              d["contact"]["scheme"] = "quick";
            }).find("/contact/scheme: must be standard or fast"),
            std::string::npos);
  EXPECT_NE(error_of([](auto& d) {
              d["contact"]["newton_iterations"] = 0;
            }).find("/contact/newton_iterations: must lie in [1, 100]"),
            std::string::npos);
  // Self contact: on with its friction, off by default; its errors name the path.
  EXPECT_FALSE(scene.model->contact.self);
  {
    nlohmann::json with_self = doc;
    with_self["contact"]["self"] = {{"mu", 0.4}};
    const Scene self_scene = build_scene(with_self, "test.json", ".");
    EXPECT_TRUE(self_scene.model->contact.self);
    EXPECT_EQ(self_scene.model->contact.self_mu, 0.4);
    EXPECT_TRUE(self_scene.model->contact.self_continuous);  // on by default
    with_self["contact"]["self"]["continuous"] = false;
    EXPECT_FALSE(build_scene(with_self, "test.json", ".").model->contact.self_continuous);
  }
  EXPECT_NE(error_of([](auto& d) {
              d["contact"]["self"] = {{"continuous", 1}};
            }).find("/contact/self/continuous"),
            std::string::npos);
  EXPECT_NE(error_of([](auto& d) {
              d["contact"]["self"] = {{"mu", -0.1}};
            }).find("/contact/self/mu: must lie in [0, 10]"),
            std::string::npos);
  EXPECT_NE(error_of([](auto& d) {
              d["contact"]["self"] = {{"friction", 0.1}};
            }).find("/contact/self"),
            std::string::npos);
  EXPECT_NE(error_of([](auto& d) {
              d["contact"]["self"] = nlohmann::json::object();
              d["integrator"] = {{"type", "xpbd"}};
            })
                .find("/contact/self/enabled: self contact needs integrator "
                      "linearized-backward-euler, implicit-euler, bdf2 or bdf3"),
            std::string::npos);
  EXPECT_NE(error_of([](auto& d) {
              d["obstacles"][0]["spin"] = {0, 0, 1};
            }).find("/obstacles/0/spin: applies to constraint contact only"),
            std::string::npos);
  EXPECT_EQ(error_of([](auto& d) { d["obstacles"][1]["spin"] = {0, 0, 1}; }), "");
  // Keyframed orientation: constraint contact only, not with a spin, times increasing.
  const nlohmann::json turn = {
      {"keyframes",
       {{{"t", 0}, {"axis_angle_deg", {0, 0, 0}}}, {{"t", 1}, {"axis_angle_deg", {0, 90, 0}}}}}};
  EXPECT_EQ(error_of([&](auto& d) { d["obstacles"][1]["orientation"] = turn; }), "");
  EXPECT_NE(error_of([&](auto& d) {
              d["obstacles"][0]["orientation"] = turn;
            }).find("/obstacles/0/orientation: applies to constraint contact only"),
            std::string::npos);
  EXPECT_NE(error_of([&](auto& d) {
              d["obstacles"][1]["orientation"] = turn;
              d["obstacles"][1]["spin"] = {0, 0, 1};
            }).find("/obstacles/1/orientation: give either spin or orientation, not both"),
            std::string::npos);
  EXPECT_NE(
      error_of([&](auto& d) {
        d["obstacles"][1]["orientation"] = turn;
        d["obstacles"][1]["orientation"]["keyframes"][1]["t"] = 0;
      })
          .find("/obstacles/1/orientation/keyframes: orientation keyframe times must increase "
                "strictly"),
      std::string::npos);
  {
    nlohmann::json turned = doc;
    turned["obstacles"][1]["orientation"] = turn;
    const Scene s = build_scene(turned, "t", ".");
    // Half way, half the turn: 45 degrees about y.
    const Mat3 half = obstacle_rotation(s.model->obstacles[1], 0.5);
    EXPECT_LT(
        (half - Eigen::AngleAxisd(std::numbers::pi / 4, Vec3::UnitY()).toRotationMatrix()).norm(),
        1e-12);
  }
  // A Krylov solver with the factor preconditioner keeps a factor: accepted.
  EXPECT_EQ(error_of([](auto& d) {
              d["solver"] = {{"type", "cg"}, {"preconditioner", "factor"}};
            }),
            "");
}

}  // namespace
}  // namespace softbody
