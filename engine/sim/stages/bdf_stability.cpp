#include "engine/sim/stages/bdf_stability.h"

#include <algorithm>
#include <cmath>

namespace softbody {

double rms_distance(const Vec3Array& a, const Vec3Array& b) {
  const size_t n = a.size();
  if (n == 0) return 0;
  double sum = 0;
  for (size_t i = 0; i < n; ++i) sum += (a[i] - b[i]).squaredNorm();
  return std::sqrt(sum / static_cast<double>(n));
}

double third_difference_rms(const Vec3Array& p_next, const Vec3Array& p, const Vec3Array& p_1,
                            const Vec3Array& p_2) {
  const size_t n = p_next.size();
  if (n == 0) return 0;
  double sum = 0;
  for (size_t i = 0; i < n; ++i) sum += (p_next[i] - 3 * p[i] + 3 * p_1[i] - p_2[i]).squaredNorm();
  return std::sqrt(sum / static_cast<double>(n));
}

int reduced_steps_after(int reductions) {
  return kReducedSteps << std::min(std::max(reductions - 1, 0), kMaxDoublings);
}

int order_allowed(const SimulationState::History::OrderLimit& limit) {
  return limit.reduced_steps > 0 ? 2 : 3;
}

namespace {

// Adds one step's squared difference to `watch`; true when its rule sees growth.
bool sees_growth(SimulationState::History::GrowthWatch& watch, const GrowthRule& rule,
                 double squared_difference, double floor) {
  watch.window_sum += squared_difference;
  if (++watch.window_steps < rule.window_steps) return false;
  const double noise = floor * floor * rule.window_steps;
  const bool growing = watch.last_window_sum > noise && watch.window_sum > watch.last_window_sum;
  watch.growing_windows = growing ? watch.growing_windows + 1 : 0;
  watch.growth = growing ? watch.growth * (watch.window_sum / watch.last_window_sum) : 1;
  watch.last_window_sum = watch.window_sum;
  watch.window_sum = 0;
  watch.window_steps = 0;
  return watch.growing_windows >= rule.windows && watch.growth >= rule.growth;
}

}  // namespace

void observe_step(SimulationState::History::OrderLimit& limit, int stepped_order, double difference,
                  double motion, double floor) {
  if (limit.reduced_steps > 0) {
    --limit.reduced_steps;
    return;
  }
  if (stepped_order < 3) return;
  // Only what the band order 3 amplifies counts: smooth motion's third difference is a small part
  // of its step.
  const double squared = difference > kBandRatio * motion ? difference * difference : 0;
  const bool fast = sees_growth(limit.fast, kFastRule, squared, floor);
  const bool slow = sees_growth(limit.slow, kSlowRule, squared, floor);
  if (fast || slow) {
    // Damp the mode at order 2, then watch afresh; each time again for twice as long: a body
    // whose modes order 3 amplifies keeps them.
    const int reductions = limit.reductions + 1;
    limit = {};
    limit.reduced_steps = reduced_steps_after(reductions);
    limit.reductions = reductions;
  }
}

}  // namespace softbody
