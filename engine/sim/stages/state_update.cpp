#include "engine/sim/stages/state_update.h"

#include "engine/sim/stages/initial_guess.h"

#include <algorithm>

namespace softbody {

void advance_positions(const Vec3Array& p, const Eigen::VectorXd& velocity, double dt,
                       Vec3Array& p_next, Vec3Array& v_next) {
  const size_t n = p.size();
  v_next.resize(n);
  p_next.resize(n);
  for (size_t v = 0; v < n; ++v) {
    v_next[v] = velocity.segment<3>(3 * static_cast<Eigen::Index>(v));
    p_next[v] = p[v] + dt * v_next[v];
  }
}

bool accept_update(const SimulationModel& model, Vec3Array& p_next, Vec3Array& v_next,
                   double t_next, SimulationState& state, StepStats& stats) {
  double max_speed = 0;
  for (size_t v = 0; v < p_next.size(); ++v) {
    if (!p_next[v].allFinite() || !v_next[v].allFinite()) return false;
    max_speed = std::max(max_speed, v_next[v].norm());
  }
  stats.max_speed = max_speed;
  if (max_speed > model.options.max_speed) return false;
  state.p = std::move(p_next);
  state.v = std::move(v_next);
  state.t = t_next;
  return true;
}

bool accept_positions(const SimulationModel& m, Vec3Array x, double h, SimulationState& state,
                      StepStats& stats) {
  Vec3Array v(x.size());
  for (size_t i = 0; i < x.size(); ++i) v[i] = (x[i] - state.p[i]) / h;
  return accept_positions(m, std::move(x), std::move(v), h, state, stats);
}

bool accept_positions(const SimulationModel& m, Vec3Array x, Vec3Array v, double h,
                      SimulationState& state, StepStats& stats) {
  for (size_t i = 0; i < m.fixed.size(); ++i)
    if (m.fixed[i]) {
      x[i] = state.p[i];
      v[i].setZero();
    }
  Vec3Array p_before = state.p, v_before = state.v;
  if (!accept_update(m, x, v, state.t + h, state, stats)) return false;
  record_history(state.history, std::move(p_before), std::move(v_before), state.t, h);
  return true;
}

}  // namespace softbody
