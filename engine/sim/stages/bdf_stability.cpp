#include "engine/sim/stages/bdf_stability.h"

#include <cmath>

namespace softbody {

double third_difference_rms(const Vec3Array& p_next, const Vec3Array& p, const Vec3Array& p_1,
                            const Vec3Array& p_2) {
  const size_t n = p_next.size();
  if (n == 0) return 0;
  double sum = 0;
  for (size_t i = 0; i < n; ++i) sum += (p_next[i] - 3 * p[i] + 3 * p_1[i] - p_2[i]).squaredNorm();
  return std::sqrt(sum / static_cast<double>(n));
}

int order_allowed(const SimulationState::History::OrderLimit& limit) {
  return limit.reduced_steps > 0 ? 2 : 3;
}

void observe_step(SimulationState::History::OrderLimit& limit, int stepped_order, double difference,
                  double floor) {
  if (limit.reduced_steps > 0) {
    --limit.reduced_steps;
    return;
  }
  if (stepped_order < 3) return;
  limit.window_sum += difference * difference;
  if (++limit.window_steps < kWindowSteps) return;
  const double noise = floor * floor * kWindowSteps;
  const bool growing = limit.last_window_sum > noise && limit.window_sum > limit.last_window_sum;
  limit.growing_windows = growing ? limit.growing_windows + 1 : 0;
  limit.growth = growing ? limit.growth * (limit.window_sum / limit.last_window_sum) : 1;
  limit.last_window_sum = limit.window_sum;
  limit.window_sum = 0;
  limit.window_steps = 0;
  if (limit.growing_windows >= kGrowingWindows ||
      (limit.growing_windows >= 2 && limit.growth >= kFastGrowth)) {
    // Damp the mode at order 2, then watch afresh.
    const int reductions = limit.reductions + 1;
    limit = {};
    limit.reduced_steps = kReducedSteps;
    limit.reductions = reductions;
  }
}

}  // namespace softbody
