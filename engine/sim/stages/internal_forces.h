// The body's internal forces during one step attempt: the elastic model's, plus for a viscous
// material (SimulationModel::viscous) the step's viscous stress, whose history comes from the
// state's material memory. Every stage that evaluates internal forces (step forces, the
// nonlinearity correction, Newton's residual) goes through it, so all see the same law.
#pragma once

#include "engine/forces/nodal_volume.h"
#include "engine/forces/viscoelastic.h"
#include "engine/sim/simulation.h"

namespace softbody {

class StepInternalForces {
 public:
  explicit StepInternalForces(const SimulationModel& model);
  // At the start of an attempt of length dt from `state`; a multistep integrator passes its
  // derivative formula for the viscous rate terms (ViscousModel::RateFormula).
  void begin(const SimulationState& state, double dt,
             const ViscousModel::RateFormula* rate = nullptr);
  // Fills `out` as ForceModel::evaluate does (energy, forces, tangent as `what` asks).
  void evaluate(const Vec3Array& p, unsigned what, ForceOutput& out);
  // After the attempt was accepted at state.p: the state's material memory moves with it.
  void commit(SimulationState& state) const;

 private:
  const SimulationModel& model_;
  std::unique_ptr<ForceWorkspace> elastic_workspace_;
  // The law's nodal volume term when it has one (added after a fused viscous pass).
  const ModelWithNodalVolume* nodal_;
  NodalVolumeTerm::Workspace nodal_workspace_;
  ViscousStep viscous_step_;
  ElementWorkspace viscous_workspace_;
};

}  // namespace softbody
