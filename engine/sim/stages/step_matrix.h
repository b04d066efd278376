// Stage 2 of a linearized backward-Euler step (seed 000 eqs. 17-19): the system A v_{k+1} = b for
// the new velocities. With T = dt, Rayleigh damping (alpha, beta) and the external forces'
// Jacobians K_H (position) and B_H (velocity):
//   A = K + ((1/T + alpha) M - T K_H - B_H) / (T + beta)
//   b = (h - B_H phi - f + M v_k / T) / (T + beta),  zero at fixed vertices.
// A's vertex blocks differ from K's, and its edges where a follower load couples vertices.
#pragma once

#include "engine/sim/simulation.h"

namespace softbody {

void assemble_step_system(const SimulationModel& model, double dt, const ForceOutput& forces,
                          const ExternalForceOutput& external, const Vec3Array& v,
                          EdgeBlockMatrix& a, Eigen::VectorXd& b);

// a.edge_skew = -scale * (the external forces' skew edge parts), or none when they have none: the
// non-symmetric part of -scale K_H that a follower load adds (surface_loads.h).
void assign_skew_edges(const ExternalForceOutput& external, Index num_edges, double scale,
                       EdgeBlockMatrix& a);

}  // namespace softbody
