// The fixed-iteration solvers' guard against steps that create energy (projective, quasi-newton).
// Stopped after a few iterations, their step is not backward Euler's minimizer, and far from it
// (a hard impact, a body crushed through itself) it can feed energy in: a box thrown at a wall
// rebounded faster than it came, a released cube flew apart (docs/validation/seed-004.md) — below
// the rollback speed, so nothing stopped it. Backward Euler itself dissipates; so a step may end
// with no more mechanical energy than it started with plus the work done on the body by what
// moves it (anchor targets and obstacles moving, surface loads). What a step creates beyond
// that is taken back: first out of its velocities' deformational part (remove_created_energy: the
// velocity relative to the body's rigid motion is scaled down, so linear and angular momentum are
// kept, as inversion alleviation keeps them); what is left (stored in the deformation, or more
// than that motion holds) by shortening the step, x_n + theta (x - x_n) with velocities theta v
// (PotentialMinimizer), which costs momentum. (Rolling such steps back and retaking them with
// substeps did not help: against a stiff penalty wall eight substeps of ten iterations created
// energy too, and the failed step then stopped the body dead.)
#pragma once

#include "engine/sim/simulation.h"
#include "engine/sim/stages/step_forces.h"

namespace softbody {

// Kinetic + elastic + gravity + the penalty potentials of the step's anchors and obstacles (posed
// at time t) at positions p and velocities v; the elastic energy W(p) is the caller's (the
// solvers have it from their last iterate).
struct MechanicalEnergy {
  double kinetic = 0, elastic = 0, potential = 0;
  double total() const { return kinetic + elastic + potential; }
};
MechanicalEnergy mechanical_energy(const SimulationModel& model, const StepLoads& loads,
                                   const Vec3Array& p, const Vec3Array& v, double t,
                                   double elastic);

// A body's state for the energy balance: positions, velocities, time and W(p).
struct EnergyState {
  const Vec3Array& p;
  const Vec3Array& v;
  double t;
  double elastic;
};

// A step of h's energy balance against its start, whose energy, the moving targets' and obstacles'
// work and the surface loads are taken once: created(end) is the energy [J] the step from the
// start to `end` (at the step's end time) created beyond the work done on the body (negative: it
// dissipated). The model, loads and start's positions must outlive it.
class EnergyBalance {
 public:
  EnergyBalance(const SimulationModel& model, const StepLoads& loads, const EnergyState& start,
                double h);
  double created(const EnergyState& end) const;

 private:
  const SimulationModel& model_;
  const StepLoads& loads_;
  const Vec3Array& start_p_;
  double start_total_;
  // What moving anchor targets and obstacles added to the penalty potentials over the step, at
  // the start's positions (EnergyBalance's constructor says why there).
  double target_work_;
  Vec3Array surface_forces_;  // at the start's positions and the step's end time; empty: none
};

// v less the rigid motion with the same linear and angular momentum (v_c + omega x (p - c),
// omega = I^-1 L about the centre of mass c): the deformation's velocities.
Vec3Array velocity_relative_to_rigid_motion(const std::vector<double>& mass, const Vec3Array& p,
                                            const Vec3Array& v);

// Takes `energy` [J] out of the kinetic energy of v's motion relative to the rigid motion with
// the same linear and angular momentum, which keeps both momenta (all of it when it holds less).
// Fixed vertices stay at rest. Returns what was taken.
double remove_created_energy(const SimulationModel& model, const Vec3Array& p, Vec3Array& v,
                             double energy);

}  // namespace softbody
