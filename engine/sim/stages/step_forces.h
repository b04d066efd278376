// Stage 1 of a step: internal forces and stiffness at p, and the external forces (gravity,
// anchors, obstacles) at p and the step's end time, with their Jacobians.
#pragma once

#include "engine/sim/simulation.h"
#include "engine/sim/stages/internal_forces.h"

namespace softbody {

// The model's anchors and obstacles plus this step's inputs (tools). Obstacles with penalty
// contact are forces of the step; those with constraint contact are resolved after its free
// motion (engine/contact/constraint_contact.h).
struct StepLoads {
  std::vector<Anchor> anchors;
  std::vector<Obstacle> obstacles;             // penalty
  std::vector<Obstacle> constraint_obstacles;  // constraint
};
// For a step starting at t: anchors released by then are left out.
StepLoads step_loads(const SimulationModel& model, const StepInputs& inputs, double t);

// Every obstacle of the step, penalty and constraint alike, posed at time t (posed_at), with its
// reference point's position and velocity there: for the solvers that take each obstacle per
// vertex at the step's end (vbd, projective, quasi-newton, xpbd).
struct PosedObstacles {
  std::vector<Obstacle> obstacles;
  std::vector<std::pair<Vec3, Vec3>> poses;  // reference point's position, velocity
};
PosedObstacles pose_obstacles(const StepLoads& loads, double t);

void evaluate_step_forces(const SimulationModel& model, const StepLoads& loads, const Vec3Array& p,
                          double t_next, StepInternalForces& internal, ForceOutput& forces,
                          ExternalForceOutput& external);

}  // namespace softbody
