// Stage 3 of a linearized step: solve A v_{k+1} = b from the warm start v_k (fixed vertices held
// at zero) with the shared solver layer, and account the solve in the step's statistics.
#pragma once

#include "engine/sim/simulation.h"

namespace softbody {

// False when the solution is not finite (the attempt is then rolled back).
bool solve_step_velocity(const SimulationModel& model, const EdgeBlockMatrix& a,
                         const Eigen::VectorXd& b, const Vec3Array& v_k,
                         const SolverOptions& options, StepSolver& solver,
                         Eigen::VectorXd& velocity, StepStats& stats);

}  // namespace softbody
