#include "engine/sim/rollback.h"

namespace softbody {

void step_with_rollback(const IntegratorOptions& o, SimulationState& state, StepStats& stats,
                        const StepAttempt& attempt) {
  const SimulationState saved = state;
  bool ok = false;
  for (int retry = 0; retry <= o.max_retries && !ok; ++retry) {
    // First attempt as configured; retries with the correction on and 2^retry substeps.
    const int substeps = 1 << retry;
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

}  // namespace softbody
