// Stage 4 (optional) of a linearized step: seed 000's nonlinearity correction algUNC. The
// linearization's error e = (F(p_{k+1}) - f_k - T K_k v_{k+1}) / (T + beta) is measured at the new
// positions, and per vertex the new velocity is scaled by the largest lambda <= 1 (in steps of
// 0.9) with lambda^2 |b_j + lambda e_j|^2 <= |b_j|^2 + tr(A_jj)^2 V^2: where the linear step
// overshoots what the nonlinear forces allow, the vertex moves less.
#pragma once

#include "engine/sim/simulation.h"
#include "engine/sim/stages/internal_forces.h"

namespace softbody {

// Scales v_next (and moves p_next back accordingly) in place. `forces` and `a`, `b` are the
// step's forces at p_k and its system; `forces_next` is scratch for F(p_{k+1}).
void correct_nonlinearity(const SimulationModel& model, double dt, const ForceOutput& forces,
                          const EdgeBlockMatrix& a, const Eigen::VectorXd& b,
                          StepInternalForces& internal, ForceOutput& forces_next, Vec3Array& p_next,
                          Vec3Array& v_next, StepStats& stats);

}  // namespace softbody
