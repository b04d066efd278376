// Inversion alleviation (seed 004 §5, engine/sim/stages/inversion_alleviation.h): a box whose top
// is thrown through its bottom within one step is predicted inverted; the sweeps average the
// offending elements' velocities until no element is inverted at the prediction, keeping the
// momentum (no vertex held) or taking the held vertices' velocity (fixed bottom); elements already
// inverted are left alone; the stage runs in every integrator and counts into the statistics.
#include <gtest/gtest.h>

#include <algorithm>

#include "engine/sim/integrator.h"
#include "engine/sim/stages/inversion_alleviation.h"
#include "engine/sim/surface_loads.h"
#include "engine/tests/box_models.h"

namespace softbody {
namespace {

constexpr double kH = 0.01;

struct ThrownBox {
  SimulationModel model;
  Vec3Array p, v;
};

// A 10 cm box of 2x2x2 cells, its top thrown down at 30 m/s: 30 cm in one step.
ThrownBox thrown_box(const std::string& fixed) {
  ThrownBox b;
  b.model = test::box_model({2, 2, 2, Vec3(0.1, 0.1, 0.1)}, Material{}, fixed, Vec3(0, -9.81, 0));
  b.p = b.model.rest;
  b.v.assign(b.p.size(), Vec3::Zero());
  for (size_t i = 0; i < b.p.size(); ++i)
    if (b.p[i].y() > 0.1 - 1e-9) b.v[i] = Vec3(0, -30, 0);
  return b;
}

Vec3Array predict(const ThrownBox& b, const Vec3Array& v) {
  Vec3Array y(b.p.size());
  for (size_t i = 0; i < y.size(); ++i) y[i] = b.p[i] + kH * v[i] + kH * kH * b.model.gravity;
  return y;
}

Vec3 momentum(const ThrownBox& b, const Vec3Array& v) {
  Vec3 sum = Vec3::Zero();
  for (size_t i = 0; i < v.size(); ++i) sum += b.model.mass[i] * v[i];
  return sum;
}

TEST(InversionAlleviation, SweepsUntilNoElementIsInvertedAndKeepTheMomentum) {
  ThrownBox b = thrown_box("");
  const int before = count_inverted(*b.model.topology, predict(b, b.v));
  ASSERT_GT(before, 0);
  const Vec3 p0 = momentum(b, b.v);
  Vec3Array v = b.v;
  const AlleviationResult one = alleviate_inversions(b.model, kH, kH, 1, {}, b.p, v);
  EXPECT_EQ(one.inverted_before, before);
  EXPECT_EQ(one.sweeps, 1);
  v = b.v;
  const AlleviationResult r = alleviate_inversions(b.model, kH, kH, 50, {}, b.p, v);
  EXPECT_EQ(r.inverted_after, 0);
  EXPECT_EQ(count_inverted(*b.model.topology, predict(b, v)), 0);
  EXPECT_GT(r.sweeps, 0);
  EXPECT_LE(r.sweeps, 50);
  EXPECT_LT((momentum(b, v) - p0).norm(), 1e-12 * p0.norm());
  // Dissipative: the kinetic energy can only fall (averaging is a projection in the mass norm).
  double k0 = 0, k1 = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    k0 += b.model.mass[i] * b.v[i].squaredNorm();
    k1 += b.model.mass[i] * v[i].squaredNorm();
  }
  EXPECT_LT(k1, k0);
}

TEST(InversionAlleviation, HeldVerticesAreInfiniteMass) {
  ThrownBox b = thrown_box("ymin");
  Vec3Array v = b.v;
  const AlleviationResult r = alleviate_inversions(b.model, kH, kH, 50, {}, b.p, v);
  ASSERT_GT(r.inverted_before, 0);
  EXPECT_EQ(r.inverted_after, 0);
  // Every element it touched took the fixed bottom's velocity (zero).
  for (size_t i = 0; i < v.size(); ++i) {
    if (b.model.fixed[i]) {
      EXPECT_EQ(v[i], Vec3::Zero());
    }
  }
  // An anchored vertex is held the same way: its velocity is kept.
  ThrownBox c = thrown_box("");
  const size_t top = static_cast<size_t>(std::distance(
      c.v.begin(), std::find_if(c.v.begin(), c.v.end(), [](const Vec3& x) { return x.y() < 0; })));
  Anchor held;
  held.vertex = static_cast<Index>(top);
  Vec3Array w = c.v;
  const Anchor anchors[] = {held};
  alleviate_inversions(c.model, kH, kH, 50, anchors, c.p, w);
  EXPECT_EQ(w[top], c.v[top]);
}

TEST(InversionAlleviation, ElementsInvertedAtTheStartAreLeftAlone) {
  ThrownBox b = thrown_box("");
  // Invert the box at p itself (mirror it) and give it a relative motion: nothing can repair it,
  // so nothing is averaged.
  for (Vec3& x : b.p) x.y() = -x.y();
  ASSERT_EQ(count_inverted(*b.model.topology, b.p), b.model.topology->num_tets());
  Vec3Array v = b.v;
  const AlleviationResult r = alleviate_inversions(b.model, kH, kH, 10, {}, b.p, v);
  EXPECT_EQ(r.inverted_before, 0);
  EXPECT_EQ(r.sweeps, 0);
  EXPECT_EQ(v, b.v);
}

// Seed 004's prediction is y = x + h v + h^2 M^-1 f_ext: a box at rest whose top a traction slams
// down through its bottom within the step is predicted inverted, and the sweeps take it out
// (before, the prediction held gravity only and saw nothing coming).
TEST(InversionAlleviation, TheSurfaceLoadsAreInThePrediction) {
  ThrownBox b = thrown_box("");  // free: the velocities' momentum must be kept
  std::vector<Triangle> top;
  for (const Triangle& f : b.model.topology->boundary_faces())
    if (std::all_of(f.begin(), f.end(),
                    [&](Index i) { return b.p[static_cast<size_t>(i)].y() > 0.1 - 1e-9; }))
      top.push_back(f);
  ASSERT_EQ(top.size(), 8u);
  // 3 MPa on the 10 x 10 cm top of a 1 kg box: 30 kN, metres within one step of 10 ms.
  b.model.surface_loads.push_back(
      make_surface_load(top, b.model.rest, Vec3(0, -3e6, 0), 0, LoadCurve{}));
  Vec3Array v(b.p.size(), Vec3::Zero());
  const AlleviationResult r = alleviate_inversions(b.model, kH, kH, 50, {}, b.p, v);
  EXPECT_GT(r.inverted_before, 0);
  EXPECT_EQ(r.inverted_after, 0);
  EXPECT_GT(r.sweeps, 0);
  // The momentum of v is kept (the step adds the load's impulse, unchanged): v = v~* - h a.
  double scale = 0;
  for (size_t i = 0; i < v.size(); ++i) scale += b.model.mass[i] * v[i].norm();
  ASSERT_GT(scale, 0);
  EXPECT_LT(momentum(b, v).norm(), 1e-12 * scale);
  // Without the load nothing is predicted inverted.
  b.model.surface_loads.clear();
  Vec3Array w(b.p.size(), Vec3::Zero());
  EXPECT_EQ(alleviate_inversions(b.model, kH, kH, 50, {}, b.p, w).inverted_before, 0);
}

// In a step: every integrator reports the inverted elements after it, and with alleviation on the
// ones its prediction had and the sweeps.
TEST(InversionAlleviation, EveryIntegratorRunsItAndReportsInvertedElements) {
  for (const IntegratorType type : {IntegratorType::kLinearizedBackwardEuler,
                                    IntegratorType::kImplicitEuler, IntegratorType::kBdf2}) {
    for (const int sweeps : {0, 20}) {
      ThrownBox b = thrown_box("ymin");
      b.model.options.type = type;
      b.model.options.dt = kH;
      b.model.options.alleviation_sweeps = sweeps;
      b.model.options.max_speed = 1e3;
      auto model = std::make_shared<const SimulationModel>(b.model);
      auto integrator = make_integrator(model);
      SimulationState state;
      state.p = b.p;
      state.v = b.v;
      const StepStats s = integrator->step(state);
      SCOPED_TRACE(std::string(integrator_type_name(type)) + " sweeps " + std::to_string(sweeps));
      EXPECT_EQ(s.inverted_elements, count_inverted(*model->topology, state.p));
      if (sweeps > 0) {
        EXPECT_GT(s.inverted_before_alleviation, 0);
        EXPECT_GT(s.alleviation_sweeps, 0);
        // The thrown top took the held bottom's velocity: the box barely moves in the step.
        EXPECT_LT(s.max_speed, 5.0);
      } else {
        EXPECT_EQ(s.inverted_before_alleviation, 0);
        EXPECT_EQ(s.alleviation_sweeps, 0);
      }
    }
  }
}

}  // namespace
}  // namespace softbody
