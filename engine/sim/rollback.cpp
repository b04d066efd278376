#include "engine/sim/rollback.h"

#include <algorithm>
#include <chrono>

#include "engine/sim/stages/inversion_alleviation.h"

namespace softbody {

void step_with_rollback(const IntegratorOptions& o, SimulationState& state, StepStats& stats,
                        const StepAttempt& attempt) {
  const SimulationState saved = state;
  bool ok = false;
  for (int retry = 0; retry <= o.max_retries && !ok; ++retry) {
    // First attempt as configured; retries with the correction on and 2^retry times the
    // substeps.
    const int substeps = std::max(o.substeps, 1) << retry;
    const bool correction = o.correction || retry > 0;
    state = saved;
    stats.substeps = substeps;
    stats.residual = 0;  // the accepted attempt's solves are what the step reports
    stats.converged = true;
    stats.definiteness_shift = 0;
    stats.inverted_before_alleviation = 0;
    stats.alleviation_sweeps = 0;
    ok = true;
    for (int s = 0; s < substeps && ok; ++s)
      ok = attempt(state, o.dt / substeps, correction, stats);
    if (!ok) ++stats.rolled_back;
  }
  if (!ok) {
    // Never propagate a diverged state: keep the positions, drop the kinetic energy (repeating the
    // same velocities would fail the same way), and let time advance.
    state = saved;
    for (Vec3& v : state.v) v.setZero();
    state.t = saved.t + o.dt;
    stats.failed = true;
  }
  state.step = saved.step + 1;
  stats.step = state.step;
  stats.t = state.t;
}

StepStats fixed_iteration_step(const SimulationModel& model, const char* method,
                               SimulationState& state, const PositionAttempt& attempt) {
  const auto start = std::chrono::steady_clock::now();
  StepStats stats;
  stats.solver_method = method;
  stats.stop_reason = StopReason::kMaxIterations;
  step_with_rollback(
      model.options, state, stats,
      [&](SimulationState& s, double h, bool, StepStats& st) { return attempt(s, h, st); });
  stats.inverted_elements = count_inverted(*model.topology, state.p);
  stats.step_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return stats;
}

}  // namespace softbody
