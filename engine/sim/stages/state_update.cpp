#include "engine/sim/stages/state_update.h"

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

}  // namespace softbody
