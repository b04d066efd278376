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

// The loads' Jacobian dh/dp at p by central differences of their forces (dense, 3n x 3n).
Eigen::MatrixXd jacobian_by_differences(std::span<const SurfaceLoad> loads, const Vec3Array& p) {
  const auto n = static_cast<Eigen::Index>(p.size());
  Eigen::MatrixXd j(3 * n, 3 * n);
  const auto forces = [&](const Vec3Array& x) {
    ExternalForceOutput out;
    out.reset(x.size());
    add_surface_loads(loads, x, 0, out);
    Eigen::VectorXd h(3 * n);
    for (Eigen::Index v = 0; v < n; ++v) h.segment<3>(3 * v) = out.h[static_cast<size_t>(v)];
    return h;
  };
  constexpr double step = 1e-6;
  for (Eigen::Index c = 0; c < 3 * n; ++c) {
    Vec3Array plus = p, minus = p;
    plus[static_cast<size_t>(c / 3)][c % 3] += step;
    minus[static_cast<size_t>(c / 3)][c % 3] -= step;
    j.col(c) = (forces(plus) - forces(minus)) / (2 * step);
  }
  return j;
}

// What the step matrix holds of them: add_surface_load_stiffness's vertex blocks, edge blocks and
// skew edge parts, as a dense matrix; with `symmetric_only`, the edge blocks alone (what a
// factorization of sym(A) sees).
Eigen::MatrixXd stiffness_in_the_step_matrix(std::span<const SurfaceLoad> loads,
                                             const MeshTopology& topology, const Vec3Array& p,
                                             bool symmetric_only = false) {
  ExternalForceOutput out;
  out.reset(p.size());
  add_surface_load_stiffness(loads, topology, p, 0, out);
  EdgeBlockMatrix k;
  k.resize(topology.num_vertices(), topology.num_edges());
  k.set_zero();
  for (const auto& [e, block] : out.k_h_edges) k.edge_blocks[static_cast<size_t>(e)] += block;
  if (!symmetric_only) {
    k.vertex_blocks = out.k_h;
    k.edge_skew.assign(k.edge_blocks.size(), Mat3::Zero());
    for (const auto& [e, block] : out.k_h_edges_skew) k.edge_skew[static_cast<size_t>(e)] += block;
  }
  return k.to_dense(topology);
}

// The bar of pulled_bar, its vertices moved off the box (a deformed, turned surface).
Vec3Array deformed(const Vec3Array& rest) {
  Vec3Array p = rest;
  for (size_t v = 0; v < p.size(); ++v) {
    const double s = static_cast<double>(v);
    p[v] += 0.01 * Vec3(std::sin(1.3 * s), std::cos(2.1 * s), std::sin(0.7 * s + 1));
    p[v] = Eigen::AngleAxisd(0.3, Vec3(1, 2, 3).normalized()) * p[v];
  }
  return p;
}

// On a closed surface one pressure is -d(p V)/dx, V the enclosed volume: its Jacobian is
// symmetric, and the step matrix holds all of it (its vertex blocks, skew per face, sum to zero).
TEST(SurfaceLoads, APressureOnAClosedSurfaceHasAllOfItsJacobianInTheStepMatrix) {
  const Scene scene = build_scene(
      pulled_bar(R"({"box": {"min": [-1, -1, -1], "max": [1, 1, 1]}, "pressure": 3000})"), "t",
      ".");
  const auto& loads = scene.model->surface_loads;
  ASSERT_EQ(loads.front().faces.size(), scene.model->topology->boundary_faces().size());
  const Vec3Array p = deformed(scene.model->rest);
  EXPECT_LT(total_surface_load(loads, p, 0).norm(), 1e-12);  // a closed surface: no net force
  const Eigen::MatrixXd exact = jacobian_by_differences(loads, p);
  const Eigen::MatrixXd held = stiffness_in_the_step_matrix(loads, *scene.model->topology, p);
  EXPECT_LT((held - exact).norm(), 1e-7 * exact.norm())
      << "|held - exact| " << (held - exact).norm() << " of " << exact.norm();
}

// On an open patch the Jacobian is not symmetric (its skew part lives on the patch's rim): the
// step matrix holds all of it, and its edge blocks (what the factor sees) the symmetric part.
TEST(SurfaceLoads, OnAnOpenPatchTheStepMatrixHoldsAllOfTheJacobian) {
  const Scene scene = build_scene(pulled_bar(R"({"set": "xmax", "pressure": -3000})"), "t", ".");
  const auto& loads = scene.model->surface_loads;
  const MeshTopology& topology = *scene.model->topology;
  const Vec3Array p = deformed(scene.model->rest);
  const Eigen::MatrixXd exact = jacobian_by_differences(loads, p);
  const Eigen::MatrixXd symmetric = 0.5 * (exact + exact.transpose());
  EXPECT_GT((exact - symmetric).norm(), 0.1 * exact.norm());  // the skew part is not small
  const Eigen::MatrixXd held = stiffness_in_the_step_matrix(loads, topology, p);
  EXPECT_LT((held - exact).norm(), 1e-7 * exact.norm())
      << "|held - exact| " << (held - exact).norm() << " of " << exact.norm();
  const Eigen::MatrixXd factored = stiffness_in_the_step_matrix(loads, topology, p, true);
  EXPECT_LT((factored - symmetric).norm(), 1e-7 * symmetric.norm());
}

// The open end of a held bar pushed by a follower pressure, 5 % of E, ramped in over 0.1 s: with
// the skew part in the matrix Newton converges quadratically there too (measured: 115 iterations
// in 50 steps, at most 3 a step; with the symmetric part alone 204, up to 5, converging linearly),
// and so does the static solve (30 iterations over 10 increments; with the symmetric part alone
// 121 without converging).
TEST(SurfaceLoads, NewtonConvergesFastUnderAPressureOnAnOpenPatch) {
  nlohmann::json doc =
      pulled_bar(R"({"set": "xmax", "pressure": 5000, "curve": [[0, 0], [0.1, 1]]})");
  doc["mesh"]["box"]["cells"] = {6, 3, 3};
  doc["material"]["nu"] = 0.3;
  doc["dt"] = 0.01;
  const Scene scene = build_scene(doc, "t", ".");
  auto integrator = make_integrator(scene.model);
  SimulationState state = rest_state(*scene.model);
  int iterations = 0;
  for (int k = 0; k < 50; ++k) {
    const StepStats stats = integrator->step(state, {});
    EXPECT_FALSE(stats.newton_fallback) << "step " << k;
    iterations += stats.newton_iterations;
  }
  EXPECT_LE(iterations, 150);
  // The end moved inwards, as the pressure pushes it (0.3 m long: by 16 mm).
  double end = 0;
  int count = 0;
  for (size_t v = 0; v < state.p.size(); ++v)
    if (scene.model->rest[v].x() > 0.3 - 1e-9) {
      end += state.p[v].x();
      ++count;
    }
  EXPECT_LT(end / count, 0.3 - 0.01);
  const StaticOptions options;
  const StaticResult statics = solve_static(*scene.model, options);
  EXPECT_TRUE(statics.converged);
  EXPECT_LE(statics.iterations, 4 * options.increments);
  EXPECT_EQ(statics.inverted_elements, 0);
}

// A bar squeezed by a pressure on its whole surface, 20 % of E: with the pressure's Jacobian in
// the step matrix Newton converges quadratically (before it was left out: 37 of 50 steps fell
// back after 20 iterations, and the static solve drifted off without converging).
TEST(SurfaceLoads, NewtonConvergesFastUnderAClosedSurfacesPressure) {
  nlohmann::json doc = pulled_bar(
      R"({"box": {"min": [-1, -1, -1], "max": [1, 1, 1]}, "pressure": 20000, "curve": [[0, 0], [0.1, 1]]})");
  doc["mesh"]["box"]["cells"] = {6, 3, 3};
  doc["material"]["nu"] = 0.3;
  doc["dt"] = 0.01;
  Scene scene = build_scene(doc, "t", ".");
  auto integrator = make_integrator(scene.model);
  SimulationState state = rest_state(*scene.model);
  for (int k = 0; k < 30; ++k) {
    const StepStats stats = integrator->step(state, {});
    EXPECT_FALSE(stats.newton_fallback) << "step " << k;
    EXPECT_LE(stats.newton_iterations, 6) << "step " << k;
  }
  doc["loads"][0]["pressure"] = 5000;  // static: below the squeezed bar's buckling load
  scene = build_scene(doc, "t", ".");
  const StaticOptions options;
  const StaticResult statics = solve_static(*scene.model, options);
  EXPECT_TRUE(statics.converged);
  EXPECT_LE(statics.iterations, 5 * options.increments);
  EXPECT_EQ(statics.inverted_elements, 0);
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
