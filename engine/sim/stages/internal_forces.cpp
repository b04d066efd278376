#include "engine/sim/stages/internal_forces.h"

namespace softbody {

StepInternalForces::StepInternalForces(const SimulationModel& model)
    : model_(model), elastic_workspace_(model.forces->make_workspace()) {}

void StepInternalForces::begin(const SimulationState& state, double dt) {
  if (model_.viscous) model_.viscous->begin_step(state.p, state.material_memory, dt, viscous_step_);
}

void StepInternalForces::evaluate(const Vec3Array& p, unsigned what, ForceOutput& out) {
  if (model_.viscous && model_.viscous->fuses_elastic()) {
    model_.viscous->evaluate_with_elastic(p, viscous_step_, what, viscous_workspace_, out);
    return;
  }
  model_.forces->evaluate(p, what, *elastic_workspace_, out);
  if (model_.viscous) model_.viscous->add(p, viscous_step_, what, viscous_workspace_, out);
}

void StepInternalForces::commit(SimulationState& state) const {
  if (model_.viscous) model_.viscous->update_memory(state.p, viscous_step_, state.material_memory);
}

}  // namespace softbody
