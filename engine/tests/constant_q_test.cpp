// Constant-Q fitting (seed 001 §2.7): Kjartansson's gamma, and three Prony terms that reproduce the
// liver's Q = 4.8, |G(2 Hz)| = 2.5 kPa over the perceptual band.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <numbers>

#include "engine/forces/constant_q.h"
#include "engine/scene/scene.h"
#include "engine/sim/integrator.h"

namespace softbody {
namespace {

std::complex<double> modulus(const ConstantQFit& fit, double hz) {
  const double omega = 2 * std::numbers::pi * hz;
  std::complex<double> g = fit.long_term;
  for (const PronyTerm& t : fit.prony) {
    const std::complex<double> iwt(0, omega * t.tau);
    g += t.mu * iwt / (1.0 + iwt);
  }
  return g;
}

// Q = Re G / Im G of the constant-Q law is cot(pi gamma): gamma = arctan(1/Q) / pi makes it Q
// exactly. (The thesis's printed gamma = 1/tan(pi Q) would give gamma = 1/tan(4.8 pi) = -1.376
// for the liver: a negative exponent of magnitude > 1, no material.)
TEST(ConstantQ, KjartanssonsGammaGivesTheQuality) {
  for (double q : {0.5, 1.0, 4.8, 30.0}) {
    const double gamma = constant_q_gamma(q);
    EXPECT_NEAR(1 / std::tan(std::numbers::pi * gamma), q, 1e-12 * q);
    EXPECT_GT(gamma, 0);
    EXPECT_LT(gamma, 0.5);
  }
}

TEST(ConstantQ, ThreePronyTermsFitTheLiverOverThePerceptualBand) {
  const ConstantQ liver{.quality = 4.8, .modulus = 2500, .frequency = 2};
  const ConstantQFit fit = fit_constant_q(liver);
  ASSERT_EQ(fit.prony.size(), 3u);
  EXPECT_GT(fit.long_term, 0);
  std::printf("mu0 %.1f Pa; terms:", fit.long_term);
  for (const PronyTerm& t : fit.prony) std::printf(" (%.1f Pa, %.4g s)", t.mu, t.tau);
  std::printf("; compliance error %.4f\n", fit.compliance_error);
  EXPECT_LT(fit.compliance_error, 0.1);
  EXPECT_NEAR(std::abs(modulus(fit, 2)), 2500, 0.1 * 2500);
  // The quality factor over the band stays near 4.8 (three terms over five decades ripple).
  for (double hz : {0.3, 2.0, 20.0, 200.0, 2000.0}) {
    const std::complex<double> g = modulus(fit, hz);
    const double q = g.real() / g.imag();
    std::printf("Q(%g Hz) = %.2f\n", hz, q);
    EXPECT_GT(q, 4.8 / 2) << hz;
    EXPECT_LT(q, 4.8 * 2) << hz;
  }
  // More terms fit better.
  ConstantQ five = liver;
  five.terms = 5;
  EXPECT_LT(fit_constant_q(five).compliance_error, fit.compliance_error);
}

TEST(ConstantQ, RefusesWhatCannotBeFitted) {
  EXPECT_THROW(fit_constant_q({.quality = 0}), std::invalid_argument);
  EXPECT_THROW(fit_constant_q({.modulus = -1}), std::invalid_argument);
  EXPECT_THROW(fit_constant_q({.frequency = 1e5}), std::invalid_argument);
  EXPECT_THROW(fit_constant_q({.terms = 9}), std::invalid_argument);
}

// Issue 21 §5: a constant-Q creep probe within 5 % of the analytic response. A nearly massless bar
// of the liver (docs/validation/seed001/creep-bar.json, creep.py) pulled by 1 Pa from t = 0 creeps
// as linear viscoelasticity's uniaxial creep eps(t) = sigma / (9 K) + sigma J(t) / 3, with
// Kjartansson's compliance J(t) = (omega_f t)^(2 gamma) / (|G_f| Gamma(1 + 2 gamma)) and the
// elastic law's bulk modulus K = 2 mu_0 / 3 (nu = 0). Measured: within 2.5 % from 5 ms to 1 s
// (the three-term fit's 6.8 % compliance error over the band, seen in the time domain); 4 % at
// 2 ms, where the 1 ms ramp of the load still shows.
TEST(ConstantQ, ACreepProbeFollowsKjartanssonsPowerLaw) {
  const nlohmann::json doc = nlohmann::json::parse(R"({
    "mesh": {"box": {"cells": [20, 2, 2], "size": [0.5, 0.05, 0.05]}},
    "material": {"model": "stvk-tl", "nu": 0.0, "density": 0.001,
                 "viscoelastic": {"constant_q": {"Q": 4.8, "mu": 2500, "frequency": 2}}},
    "dt": 0.0005,
    "gravity": [0, 0, 0],
    "integrator": {"type": "bdf2", "newton": {"tolerance": 1e-10}},
    "solver": {"type": "auto", "tolerance": 1e-10},
    "fixed": [{"set": "xmin"}],
    "loads": [{"set": "xmax", "traction": [1, 0, 0], "curve": [[0, 0], [0.001, 1]]}],
    "probes": [{"name": "a", "box": {"min": [0.149, -1, -1], "max": [0.151, 1, 1]}},
               {"name": "b", "box": {"min": [0.349, -1, -1], "max": [0.351, 1, 1]}}]
  })");
  const Scene scene = build_scene(doc, "creep", ".");
  const double mu0 = fit_constant_q({.quality = 4.8, .modulus = 2500, .frequency = 2}).long_term;
  const double gamma = constant_q_gamma(4.8), omega = 2 * std::numbers::pi * 2;
  const auto analytic = [&](double t) {
    const double compliance = std::pow(omega * t, 2 * gamma) / (2500 * std::tgamma(1 + 2 * gamma));
    return 1.0 / (9 * (2 * mu0 / 3)) + compliance / 3;
  };
  auto stepper = make_integrator(scene.model);
  SimulationState state = rest_state(*scene.model);
  const std::vector<int> checked = {10, 20, 40, 100, 200, 400, 1000, 2000};  // 5 ms ... 1 s
  double worst = 0;
  for (int k = 1; k <= checked.back(); ++k) {
    ASSERT_FALSE(stepper->step(state).failed) << "step " << k;
    if (std::find(checked.begin(), checked.end(), k) == checked.end()) continue;
    const Vec3 a = probe_displacement(scene.probes[0], state.p, scene.model->rest);
    const Vec3 b = probe_displacement(scene.probes[1], state.p, scene.model->rest);
    const double strain = (b.x() - a.x()) / 0.2, expected = analytic(state.t);
    worst = std::max(worst, std::abs(strain / expected - 1));
    EXPECT_NEAR(strain / expected, 1, 0.05) << "t = " << state.t;
  }
  std::printf("constant-Q creep: worst relative error %.3f over 5 ms .. 1 s\n", worst);
}

}  // namespace
}  // namespace softbody
