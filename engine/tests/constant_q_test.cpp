// Constant-Q fitting (seed 001 §2.7): Kjartansson's gamma, and three Prony terms that reproduce the
// liver's Q = 4.8, |G(2 Hz)| = 2.5 kPa over the perceptual band.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <numbers>

#include "engine/forces/constant_q.h"

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

}  // namespace
}  // namespace softbody
