// Surface loads and probes (scene keys `loads`, `probes`): the forces a traction and a pressure
// put on a face, the load curve, a bar pulled to its elongation sigma L / E by the static solver
// and by the dynamics, and the scene's errors.
#include "engine/sim/surface_loads.h"

#include <gtest/gtest.h>

#include <Eigen/Geometry>

#include "engine/scene/scene.h"
#include "engine/sim/integrator.h"
#include "engine/sim/static_equilibrium.h"

namespace softbody {
namespace {

nlohmann::json pulled_bar(const std::string& load) {
  return nlohmann::json::parse(R"({
    "mesh": {"box": {"cells": [6, 2, 2], "size": [0.3, 0.1, 0.1]}},
    "material": {"model": "stvk-tl", "E": 1e5, "nu": 0, "density": 1000},
    "gravity": [0, 0, 0],
    "fixed": [{"set": "xmin"}],
    "loads": [)" + load + R"(],
    "probes": [{"name": "end", "set": "xmax"}]
  })");
}

TEST(SurfaceLoads, ATractionAndAPressurePutTheirForceOnTheFace) {
  const Scene scene = build_scene(
      pulled_bar(R"({"set": "xmax", "traction": [10, 0, 5]}, {"set": "xmax", "pressure": 4})"), "t",
      ".");
  ASSERT_EQ(scene.model->surface_loads.size(), 2u);
  const double area = 0.1 * 0.1;
  const Vec3Array& rest = scene.model->rest;
  const Vec3 dead = total_surface_load({&scene.model->surface_loads[0], 1}, rest, 0);
  EXPECT_LT((dead - Vec3(10, 0, 5) * area).norm(), 1e-12);
  // The pressure pushes against the outward normal (+x on the xmax face).
  const Vec3 follower = total_surface_load({&scene.model->surface_loads[1], 1}, rest, 0);
  EXPECT_LT((follower - Vec3(-4 * area, 0, 0)).norm(), 1e-12);
  // Turned a quarter about z, the follower turns with the face; the dead load does not.
  const Mat3 turn = Eigen::AngleAxisd(M_PI / 2, Vec3::UnitZ()).toRotationMatrix();
  Vec3Array turned = rest;
  for (Vec3& x : turned) x = turn * x;
  EXPECT_LT(
      (total_surface_load({&scene.model->surface_loads[1], 1}, turned, 0) - turn * follower).norm(),
      1e-12);
  EXPECT_LT((total_surface_load({&scene.model->surface_loads[0], 1}, turned, 0) - dead).norm(),
            1e-12);
}

TEST(SurfaceLoads, TheCurveScalesTheLoadLinearlyBetweenItsPoints) {
  const LoadCurve curve{{{0.0, 0.0}, {1.0, 2.0}, {3.0, -1.0}}};
  EXPECT_DOUBLE_EQ(curve.at(-1), 0);
  EXPECT_DOUBLE_EQ(curve.at(0.25), 0.5);
  EXPECT_DOUBLE_EQ(curve.at(2), 0.5);
  EXPECT_DOUBLE_EQ(curve.at(10), -1);
  EXPECT_DOUBLE_EQ(LoadCurve{}.at(5), 1);
}

// nu = 0: uniaxial stress has no lateral strain, so the clamp is exact and linear tetrahedra
// represent the field exactly: the end moves sigma L / E (StVK: to O(strain)).
TEST(SurfaceLoads, ABarPulledByATractionStretchesBySigmaLOverE) {
  const double sigma = 20, strain = sigma / 1e5;
  Scene scene = build_scene(pulled_bar(R"({"set": "xmax", "traction": [20, 0, 0]})"), "t", ".");
  const StaticResult statics = solve_static(*scene.model, {});
  ASSERT_TRUE(statics.converged);
  ASSERT_EQ(scene.probes.size(), 1u);
  const Vec3 end = probe_displacement(scene.probes[0], statics.p, scene.model->rest);
  EXPECT_NEAR(end.x(), strain * 0.3, 2 * strain * strain * 0.3);
  EXPECT_LT(std::abs(end.y()) + std::abs(end.z()), 1e-6 * end.x());

  // The dynamics, ramped in by the curve and damped, settles at the same place.
  nlohmann::json doc =
      pulled_bar(R"({"set": "xmax", "traction": [20, 0, 0], "curve": [[0, 0], [0.2, 1]]})");
  doc["damping"] = {{"alpha", 30}, {"beta", 0.001}};
  doc["dt"] = 0.01;
  scene = build_scene(doc, "t", ".");
  auto integrator = make_integrator(scene.model);
  SimulationState state = rest_state(*scene.model);
  for (int k = 0; k < 300; ++k) integrator->step(state, {});
  const Vec3 settled = probe_displacement(scene.probes[0], state.p, scene.model->rest);
  EXPECT_NEAR(settled.x(), end.x(), 1e-3 * end.x());
}

TEST(SurfaceLoads, SceneErrorsNameThePath) {
  auto error = [](const std::string& load) {
    try {
      build_scene(pulled_bar(load), "t.json", ".");
    } catch (const SceneError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error(R"({"set": "xmax"})").find("/loads/0/traction: a load has either a traction"),
            std::string::npos);
  EXPECT_NE(error(R"({"box": {"min": [5, 5, 5], "max": [6, 6, 6]}, "pressure": 1})")
                .find("/loads/0: the selection holds no boundary triangle"),
            std::string::npos);
  EXPECT_NE(error(R"({"set": "xmax", "pressure": 1, "curve": [[1, 0], [0, 1]]})")
                .find("/loads/0/curve: times must increase (point 1)"),
            std::string::npos);
}

}  // namespace
}  // namespace softbody
