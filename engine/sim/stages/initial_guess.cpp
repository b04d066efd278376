#include "engine/sim/stages/initial_guess.h"

#include <algorithm>

namespace softbody {

Vec3Array adaptive_initial_guess(const SimulationModel& m, const SimulationState& state, double h) {
  const SimulationState::History& history = state.history;
  const bool has_previous = history.t == state.t && history.dt == h && !history.v.empty();
  const double g_norm = m.gravity.norm();
  const size_t n = state.p.size();
  Vec3Array x(n);
  for (size_t i = 0; i < n; ++i) {
    Vec3 guess = state.p[i] + h * state.v[i];
    if (has_previous && g_norm > 0) {
      const Vec3 direction = m.gravity / g_norm;
      const double along = ((state.v[i] - history.v[0][i]) / h).dot(direction);
      guess += h * h * std::clamp(along, 0.0, g_norm) * direction;
    }
    x[i] = (!m.fixed.empty() && m.fixed[i]) ? state.p[i] : guess;
  }
  return x;
}

void record_history(SimulationState::History& history, Vec3Array p_before, Vec3Array v_before,
                    double t, double h) {
  history = {};
  history.p.push_back(std::move(p_before));
  history.v.push_back(std::move(v_before));
  history.dt = h;
  history.t = t;
}

}  // namespace softbody
