// Seed 001 §5's toy spring: every vertex on a linear spring to its rest position (an undamped
// harmonic oscillator, omega = 2 pi * 2 Hz), stepped by every integrator through the ordinary step
// code and compared with the closed form x(t) = A cos(omega t).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "engine/sim/integrator.h"
#include "engine/sim/toy_spring.h"

namespace softbody {
namespace {

const ToySpring kSpring;
const double kOmega = kSpring.omega, kAmplitude = kSpring.amplitude;

double error_after(IntegratorType type, double dt, int steps) {
  auto model = std::make_shared<const SimulationModel>(kSpring.model(type, dt));
  auto integrator = make_integrator(model);
  SimulationState s = kSpring.exact_start(*model);
  for (int i = 0; i < steps; ++i) {
    const StepStats stats = integrator->step(s);
    EXPECT_FALSE(stats.failed);
    EXPECT_FALSE(stats.newton_fallback);
  }
  return kSpring.error(*model, s);
}

TEST(ToySpring, EveryIntegratorConvergesToTheClosedFormAtItsOrder) {
  const double period = kSpring.period();
  const struct {
    IntegratorType type;
    double order;
  } cases[] = {{IntegratorType::kLinearizedBackwardEuler, 1},
               {IntegratorType::kImplicitEuler, 1},
               {IntegratorType::kBdf2, 2},
               {IntegratorType::kBdf3, 3}};
  for (const auto& c : cases) {
    double errors[3];
    for (int k = 0; k < 3; ++k) {
      const int steps = 50 << k;  // one period in 50, 100, 200 steps
      errors[k] = error_after(c.type, period / steps, steps);
    }
    const double observed = std::log2(errors[1] / errors[2]);
    std::printf("%s: error after one period %.3e, %.3e, %.3e (of %.0e): order %.3f\n",
                integrator_type_name(c.type), errors[0], errors[1], errors[2], kAmplitude,
                observed);
    EXPECT_NEAR(observed, c.order, 0.1) << integrator_type_name(c.type);
    EXPECT_NEAR(std::log2(errors[0] / errors[1]), c.order, 0.2) << integrator_type_name(c.type);
  }
}

// On a linear system backward Euler's step is the closed-form recursion
// x' = (x + h v) / (1 + w^2 h^2), v' = (v - w^2 h x) / (1 + w^2 h^2): the linearized step (with its
// nonlinearity correction, which has nothing to correct here) and Newton's converged step agree
// with it to round-off over 200 steps.
TEST(ToySpring, BackwardEulerIsTheClosedFormRecursion) {
  const double h = 0.01, w2h2 = kOmega * kOmega * h * h;
  for (IntegratorType type :
       {IntegratorType::kLinearizedBackwardEuler, IntegratorType::kImplicitEuler}) {
    auto model = std::make_shared<const SimulationModel>(kSpring.model(type, h));
    auto integrator = make_integrator(model);
    SimulationState s = rest_state(*model);
    kSpring.exact(*model, 0, s.p, s.v);
    double x = kAmplitude, v = 0, worst = 0;
    for (int n = 0; n < 200; ++n) {
      integrator->step(s);
      const double x1 = (x + h * v) / (1 + w2h2), v1 = (v - kOmega * kOmega * h * x) / (1 + w2h2);
      x = x1, v = v1;
      for (size_t i = 0; i < s.p.size(); ++i) {
        worst = std::max(worst, std::abs(s.p[i].x() - model->rest[i].x() - x));
        worst = std::max(worst, std::abs(s.v[i].x() - v) * h);
      }
    }
    EXPECT_LT(worst, 1e-11 * kAmplitude) << integrator_type_name(type);
    // Backward Euler's numerical damping: after 200 steps the amplitude fell to
    // (1 + w^2 h^2)^(-100) of A.
    EXPECT_NEAR(std::hypot(x, v / kOmega), kAmplitude * std::pow(1 + w2h2, -100), 1e-12);
  }
}

}  // namespace
}  // namespace softbody
