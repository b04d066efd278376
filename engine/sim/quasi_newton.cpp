#include "engine/sim/quasi_newton.h"

#include <cmath>
#include <vector>

namespace softbody {
namespace {

// Armijo's sufficient decrease.
constexpr double kArmijo = 1e-4;

}  // namespace

void QuasiNewton::direction(const Vec3Array& gradient, Vec3Array& d) {
  const size_t n = gradient.size();
  Vec3Array q = gradient;
  std::vector<double> a(history_.size());
  for (size_t k = history_.size(); k-- > 0;) {
    const Pair& p = history_[k];
    a[k] = p.rho * dot(p.s, q);
    for (size_t i = 0; i < n; ++i) q[i] -= a[k] * p.y[i];
  }
  matrix_.solve(q, d);
  for (size_t k = 0; k < history_.size(); ++k) {
    const Pair& p = history_[k];
    const double b = p.rho * dot(p.y, d);
    for (size_t i = 0; i < n; ++i) d[i] += (a[k] - b) * p.s[i];
  }
  for (Vec3& v : d) v = -v;
}

void QuasiNewton::minimize(Vec3Array& x, StepStats& stats) {
  const IntegratorOptions& o = model_->options;
  const size_t n = x.size();
  history_.clear();
  Vec3Array gradient, trial_gradient, d, trial(n);
  double energy = potential_.evaluate(x, &gradient);
  const double first_gradient = std::sqrt(dot(gradient, gradient));
  for (int k = 0; k < o.iterations; ++k) {
    direction(gradient, d);
    double slope = dot(gradient, d);
    if (!(slope < 0)) {
      // Not a descent direction (round-off in the pairs): restart from A^-1.
      history_.clear();
      direction(gradient, d);
      slope = dot(gradient, d);
      if (!(slope < 0)) break;  // at a stationary point
    }
    // Backtracking: the first trial with its gradient (usually accepted), the others energy only
    // and the gradient once one is. A's curvature can be far below the law's (a clamped
    // Neo-Hooke element compressed past J0): the step may need to shrink a million-fold.
    double step = 1;
    double trial_energy = 0;
    bool accepted = false;
    for (int halving = 0; halving <= kMaxHalvings; ++halving, step *= 0.5) {
      for (size_t i = 0; i < n; ++i) trial[i] = x[i] + step * d[i];
      trial_energy = potential_.evaluate(trial, halving == 0 ? &trial_gradient : nullptr);
      if (trial_energy <= energy + kArmijo * step * slope + kEnergyRoundOff * std::abs(energy)) {
        accepted = true;
        if (halving > 0) potential_.evaluate(trial, &trial_gradient);
        break;
      }
    }
    ++stats.iterations;
    if (!accepted) break;  // no decrease left above round-off
    Pair pair{Vec3Array(n), Vec3Array(n), 0};
    for (size_t i = 0; i < n; ++i) {
      pair.s[i] = trial[i] - x[i];
      pair.y[i] = trial_gradient[i] - gradient[i];
    }
    const double curvature = dot(pair.s, pair.y);
    // Only pairs of positive curvature keep H positive definite (a non-convex stretch is skipped).
    if (curvature > 0) {
      pair.rho = 1 / curvature;
      history_.push_back(std::move(pair));
      if (history_.size() > static_cast<size_t>(kHistory)) history_.pop_front();
    }
    x.swap(trial);
    gradient.swap(trial_gradient);
    energy = trial_energy;
  }
  finish_statistics(first_gradient, gradient, energy, stats);
}

}  // namespace softbody
