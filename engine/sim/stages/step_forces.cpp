#include "engine/sim/stages/step_forces.h"

namespace softbody {

StepLoads step_loads(const SimulationModel& model, const StepInputs& inputs) {
  StepLoads loads{model.anchors, model.obstacles};
  loads.anchors.insert(loads.anchors.end(), inputs.anchors.begin(), inputs.anchors.end());
  loads.obstacles.insert(loads.obstacles.end(), inputs.obstacles.begin(), inputs.obstacles.end());
  return loads;
}

void evaluate_step_forces(const SimulationModel& model, const StepLoads& loads, const Vec3Array& p,
                          double t_next, StepInternalForces& internal, ForceOutput& forces,
                          ExternalForceOutput& external) {
  internal.evaluate(p, kEvalForces | kEvalStiffness, forces);
  evaluate_external_forces(loads.anchors, loads.obstacles, model.mass, model.gravity, p, t_next,
                           external);
  add_surface_loads(model.surface_loads, p, t_next, external);
}

}  // namespace softbody
