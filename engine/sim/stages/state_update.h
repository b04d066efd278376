// The last stages of a step: positions from the new velocities (p_{k+1} = p_k + T v_{k+1}), and
// the acceptance check that decides whether the attempt becomes the new state.
#pragma once

#include "engine/sim/simulation.h"

namespace softbody {

void advance_positions(const Vec3Array& p, const Eigen::VectorXd& velocity, double dt,
                       Vec3Array& p_next, Vec3Array& v_next);

// Moves p_next, v_next and t_next into `state` when every vertex is finite and no faster than the
// model's max_speed (recorded in stats.max_speed); false leaves `state` as it was.
bool accept_update(const SimulationModel& model, Vec3Array& p_next, Vec3Array& v_next,
                   double t_next, SimulationState& state, StepStats& stats);

// The end of a step of h taken as positions (vbd, projective, quasi-newton): velocities
// (x - p_n) / h, fixed vertices kept at rest, accept_update, and the state before the step
// recorded as the new state's history (record_history). False leaves `state` as it was.
bool accept_positions(const SimulationModel& model, Vec3Array x, double h, SimulationState& state,
                      StepStats& stats);
// The same with the end velocities given (corrected after the solve).
bool accept_positions(const SimulationModel& model, Vec3Array x, Vec3Array v, double h,
                      SimulationState& state, StepStats& stats);

}  // namespace softbody
