#include "engine/sim/projective_dynamics.h"

#include <cmath>

namespace softbody {

void ProjectiveDynamics::minimize(Vec3Array& x, StepStats& stats) {
  const IntegratorOptions& o = model_->options;
  const size_t n = x.size();
  Vec3Array gradient, trial_gradient, correction, trial(n), x_previous = x;
  double energy = potential_.evaluate(x, &gradient);
  const double first_gradient = std::sqrt(dot(gradient, gradient));
  double omega = 1;
  int accelerated = 0;  // iterations since Chebyshev last restarted
  for (int k = 0; k < o.iterations; ++k) {
    matrix_.solve(gradient, correction);
    // The local/global iterate and, accelerated, omega (x^ - x_{k-1}) + x_{k-1}.
    if (o.chebyshev > 0) {
      const double rho = o.chebyshev;
      omega = accelerated == 0   ? 1
              : accelerated == 1 ? 2 / (2 - rho * rho)
                                 : 4 / (4 - rho * rho * omega);
    }
    for (size_t i = 0; i < n; ++i) {
      const Vec3 plain = x[i] - correction[i];
      trial[i] = omega == 1 ? plain : omega * (plain - x_previous[i]) + x_previous[i];
    }
    // Halvings (energy only; the gradient once one is accepted): A's curvature can be far below
    // the law's (a clamped Neo-Hooke element compressed past J0).
    double trial_energy = potential_.evaluate(trial, &trial_gradient);
    int halvings = 0;
    while (!(trial_energy <= energy + kEnergyRoundOff * std::abs(energy)) &&
           halvings < kMaxHalvings) {
      for (size_t i = 0; i < n; ++i) trial[i] = 0.5 * (x[i] + trial[i]);
      trial_energy = potential_.evaluate(trial, nullptr);
      ++halvings;
    }
    if (halvings > 0) potential_.evaluate(trial, &trial_gradient);
    ++stats.iterations;
    if (!(trial_energy <= energy + kEnergyRoundOff * std::abs(energy))) break;  // at round-off
    // A halved step is no longer the sequence Chebyshev extrapolates: restart it.
    accelerated = halvings > 0 ? 0 : accelerated + 1;
    x_previous = x;
    x.swap(trial);
    gradient.swap(trial_gradient);
    energy = trial_energy;
  }
  finish_statistics(first_gradient, gradient, energy, stats);
}

}  // namespace softbody
