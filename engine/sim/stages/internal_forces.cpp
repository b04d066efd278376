#include "engine/sim/stages/internal_forces.h"

namespace softbody {

StepInternalForces::StepInternalForces(const SimulationModel& model)
    : model_(model),
      elastic_workspace_(model.forces->make_workspace()),
      nodal_(dynamic_cast<const ModelWithNodalVolume*>(model.forces.get())) {}

void StepInternalForces::begin(const SimulationState& state, double dt,
                               const ViscousModel::RateFormula* rate) {
  if (model_.viscous)
    model_.viscous->begin_step(state.p, state.material_memory, dt, viscous_step_, rate);
}

void StepInternalForces::evaluate(const Vec3Array& p, unsigned what, ForceOutput& out) {
  if (model_.viscous && model_.viscous->fuses_elastic()) {
    model_.viscous->evaluate_with_elastic(p, viscous_step_, what, viscous_workspace_, out);
    // The fused element pass is the element law's shear part; the volume is held per vertex.
    if (nodal_) nodal_->term().add(p, what, nodal_workspace_, out);
    return;
  }
  model_.forces->evaluate(p, what, *elastic_workspace_, out);
  if (model_.viscous) model_.viscous->add(p, viscous_step_, what, viscous_workspace_, out);
}

void StepInternalForces::commit(SimulationState& state) const {
  if (model_.viscous) model_.viscous->update_memory(state.p, viscous_step_, state.material_memory);
}

}  // namespace softbody
