// How Newton on the step equations stays on course: the incremental potential Psi whose gradient
// is the residual G, and the line searches along a Newton direction (engine/sim/stages/).
#include <gtest/gtest.h>

#include <cmath>

#include "engine/mesh/box_generator.h"
#include "engine/sim/external_forces.h"
#include "engine/sim/stages/backward_euler_residual.h"
#include "engine/sim/stages/line_search.h"
#include "engine/sim/surface_loads.h"

namespace softbody {
namespace {

// phi(a) along a Newton direction whose Jacobian did not know a contact: the free quadratic
// 0.5 k a^2 - b a has its minimum at a = 1 (the full step), but from a = c on a penalty of
// stiffness K holds the point back. The minimum along the line lies just past c.
struct KinkedLine {
  double k = 1, b = 1, c = 0.3, stiffness = 1e4;
  std::pair<double, double> operator()(double a) const {
    const double depth = std::max(a - c, 0.0);
    return {0.5 * k * a * a - b * a + 0.5 * stiffness * depth * depth,
            k * a - b + stiffness * depth};
  }
  double minimum() const { return (b + stiffness * c) / (k + stiffness); }
};

TEST(LineSearch, TakesTheFullNewtonStepOnAQuadratic) {
  const auto quadratic = [](double a) { return std::pair{0.5 * a * a - a, a - 1}; };
  const LineSearchResult r = minimizing_line_search(quadratic, 0, -1, 0);
  EXPECT_TRUE(r.accepted);
  EXPECT_EQ(r.step, 1);
  EXPECT_EQ(r.backtracks, 0);
}

TEST(LineSearch, StepsIntoAContactThatBacktrackingStopsShortOf) {
  const KinkedLine line;
  const LineSearchResult r = minimizing_line_search(line, 0, -line.b, 0);
  ASSERT_TRUE(r.accepted);
  // Past the kink, so the next Jacobian holds the contact, and near the line's minimum.
  EXPECT_GT(r.step, line.c);
  EXPECT_LE(std::abs(line(r.step).second), 0.5 * line.b);
  EXPECT_NEAR(r.step, line.minimum(), 0.5 * (line.minimum() - line.c) + 1e-9);
  // Armijo's backtracking, which sees only values, keeps a point short of the kink: the reason
  // the minimizing search exists (bdf_newton.h).
  const LineSearchResult armijo =
      armijo_line_search([&](double a) { return line(a).first; }, 0, -line.b);
  ASSERT_TRUE(armijo.accepted);
  EXPECT_LT(armijo.step, line.c);
}

TEST(LineSearch, RoundOffInThePotentialDoesNotStallIt) {
  // Near the answer Psi's changes fall below its round-off: a rise of 1e-15 of a value of 1e3 is
  // noise, and the full step is taken when the noise allowance covers it.
  const auto noisy = [](double a) { return std::pair{1e3 + 1e-12 * a, -1e-14 + 2e-14 * a}; };
  EXPECT_FALSE(minimizing_line_search(noisy, 1e3, -1e-14, 0, 4).accepted);
  const LineSearchResult r = minimizing_line_search(noisy, 1e3, -1e-14, 1e-10);
  EXPECT_TRUE(r.accepted);
  EXPECT_EQ(r.step, 1);
}

TEST(LineSearch, FailsWhereNothingDescends) {
  const auto rising = [](double a) { return std::pair{a, 1.0}; };
  const LineSearchResult r = minimizing_line_search(rising, 0, -1, 0);
  EXPECT_FALSE(r.accepted);
  EXPECT_EQ(r.step, 0);
}

// A box pressed by a moving sphere into a floor, held by an anchor, under gravity, Rayleigh
// damping and a dead load: every force with a potential.
struct PressedBox {
  TetMesh mesh = make_box_mesh({.nx = 4, .ny = 2, .nz = 2, .size = Vec3(0.2, 0.05, 0.05)});
  SimulationModel m;
  std::vector<Obstacle> obstacles;
  std::vector<Anchor> anchors;
  PressedBox() {
    m.topology = std::make_shared<const MeshTopology>(mesh);
    const Material material{2e5, 0.4, 1000};
    m.forces =
        make_force_model("stvk-edge", m.topology, mesh.vertices, material, VolumetricKind::kCubic);
    m.rest = mesh.vertices;
    m.mass = lumped_masses(mesh, material.density);
    m.gravity = Vec3(0, -9.81, 0);
    m.options.dt = 0.01;
    m.options.alpha = 0.5;
    m.options.beta = 0.01;
    m.fixed.assign(mesh.vertices.size(), 0);
    m.fixed[0] = 1;
    Obstacle floor;
    floor.trajectory = make_constant_trajectory(Vec3(0, 0.004, 0));
    floor.contact = {.stiffness = 2e4, .damping = 50, .friction = 1e4};
    Obstacle sphere = floor;
    sphere.shape = ObstacleShape::kSphere;
    sphere.radius = 0.03;
    sphere.trajectory = make_sampled_trajectory(Vec3(0.21, 0.06, 0.025), Vec3(-0.1, 0, 0.02));
    obstacles = {floor, sphere};
    anchors = {{.vertex = 7,
                .target = make_constant_trajectory(mesh.vertices[7] + Vec3(0.002, 0, 0)),
                .stiffness = 300,
                .damping = 2}};
    std::vector<Triangle> top;
    for (const Triangle& f : m.topology->boundary_faces()) {
      bool on_top = true;
      for (Index v : f) on_top = on_top && mesh.vertices[static_cast<size_t>(v)].y() > 0.049;
      if (on_top) top.push_back(f);
    }
    m.surface_loads.push_back(
        make_surface_load(top, mesh.vertices, Vec3(30, -200, 0), 0, LoadCurve{}));
  }
};

TEST(StepPotential, ItsGradientIsTheBackwardEulerResidual) {
  PressedBox box;
  const SimulationModel& m = box.m;
  const double dt = m.options.dt;
  const size_t n = box.mesh.vertices.size();
  // The step's start: deformed a little, moving; B_H and phi lagged there as Newton lags them.
  Vec3Array p = box.mesh.vertices, v(n);
  for (size_t i = 0; i < n; ++i) {
    const double s = static_cast<double>(i);
    p[i] += 1e-3 * Vec3(std::sin(s), std::cos(2 * s), std::sin(3 * s));
    v[i] = 0.05 * Vec3(std::cos(s), std::sin(2 * s), 0.5);
  }
  const ForceOutput start_forces = m.forces->evaluate(p, kEvalForces | kEvalStiffness);
  ExternalForceOutput start_external;
  evaluate_external_forces(box.anchors, box.obstacles, m.mass, m.gravity, p, dt, start_external);
  ASSERT_GT(start_external.contacts, 3);
  const StepStart start{p, v, start_forces.K};
  // Psi and G at p + dt w: what BdfNewton::evaluate_at computes.
  const auto at = [&](const Vec3Array& w, Eigen::VectorXd* g) {
    Vec3Array q(n);
    for (size_t i = 0; i < n; ++i) q[i] = p[i] + dt * w[i];
    const ForceOutput forces = m.forces->evaluate(q, kEvalEnergy | kEvalForces);
    ExternalForceOutput external;
    evaluate_external_forces(box.anchors, box.obstacles, m.mass, m.gravity, q, dt, external);
    add_surface_loads(m.surface_loads, q, dt, external);
    EXPECT_TRUE(external.conservative);
    external.b_h = start_external.b_h;
    external.phi = start_external.phi;
    Eigen::VectorXd residual;
    StepPotential potential;
    backward_euler_residual(m, dt, start, w, forces, external, g ? *g : residual, &potential);
    return potential.value;
  };
  Vec3Array w = v;
  w[0].setZero();
  Eigen::VectorXd g;
  at(w, &g);
  double error = 0, size = 0;
  for (size_t i = 1; i < n; ++i) {
    for (int k = 0; k < 3; ++k) {
      constexpr double h = 1e-6;
      Vec3Array plus = w, minus = w;
      plus[i][k] += h;
      minus[i][k] -= h;
      const double derivative = (at(plus, nullptr) - at(minus, nullptr)) / (2 * h);
      const double expected = g[3 * static_cast<Eigen::Index>(i) + k];
      error = std::max(error, std::abs(derivative - expected));
      size = std::max(size, std::abs(expected));
    }
  }
  EXPECT_LT(error, 1e-6 * size) << "largest |dPsi/dv - G| " << error << " of |G| " << size;
}

TEST(StepPotential, AFollowerLoadMarksTheForcesNotConservative) {
  PressedBox box;
  box.m.surface_loads.front().pressure = 1e3;
  ExternalForceOutput external;
  external.reset(box.mesh.vertices.size());
  add_surface_loads(box.m.surface_loads, box.mesh.vertices, 0, external);
  EXPECT_FALSE(external.conservative);
}

}  // namespace
}  // namespace softbody
