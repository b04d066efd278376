// The first iterate of the solvers that minimize the step's incremental potential at a fixed
// iteration count (vbd, projective, quasi-newton): VBD's adaptive guess (Chen et al. 2024),
// x_n + h v_n + h^2 a~, with a~ the part of the last step's acceleration along gravity clamped to
// [0, |g|] (a body resting on the ground starts where it rests, a falling one where it falls).
// The last step's velocities come from SimulationState::history; without them a~ = 0. Fixed
// vertices start where they are.
#pragma once

#include "engine/sim/simulation.h"

namespace softbody {

Vec3Array adaptive_initial_guess(const SimulationModel& model, const SimulationState& state,
                                 double h);

// Records the state before a step of h (p_before, v_before) as the history of the state after it,
// whose time is t: the next step's adaptive guess, and a valid one-entry history for BDF.
void record_history(SimulationState::History& history, Vec3Array p_before, Vec3Array v_before,
                    double t, double h);

}  // namespace softbody
