// What every integrator does with a failed attempt (design guide §3, "the simulator must never
// stop"): the state is restored — all of it, solver memory included — and the step retried with
// the nonlinearity correction on and 2, 4, 8 substeps; when every retry fails too, the positions
// are kept, the velocities zeroed and time advances. A diverged state is never propagated.
#pragma once

#include <functional>

#include "engine/sim/simulation.h"

namespace softbody {

// Advances `state` by `dt` with or without the correction; false: discard the attempt.
using StepAttempt =
    std::function<bool(SimulationState& state, double dt, bool correction, StepStats& stats)>;

// One step of model.options.dt with retries; fills the step's bookkeeping in `stats`.
void step_with_rollback(const IntegratorOptions& options, SimulationState& state, StepStats& stats,
                        const StepAttempt& attempt);

// A whole step of a fixed-iteration integrator (vbd, projective, quasi-newton, xpbd), whose
// attempts take the state and h: step_with_rollback, then the step's solver name, inverted
// elements and wall time in the statistics.
using PositionAttempt = std::function<bool(SimulationState& state, double h, StepStats& stats)>;
StepStats fixed_iteration_step(const SimulationModel& model, const char* method,
                               SimulationState& state, const PositionAttempt& attempt);

}  // namespace softbody
