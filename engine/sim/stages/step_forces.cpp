#include "engine/sim/stages/step_forces.h"

namespace softbody {

StepLoads step_loads(const SimulationModel& model, const StepInputs& inputs, double t) {
  StepLoads loads;
  for (const auto* list : {&model.anchors, &inputs.anchors})
    for (const Anchor& a : *list)
      if (t < a.release) loads.anchors.push_back(a);
  for (const auto* list : {&model.obstacles, &inputs.obstacles})
    for (const Obstacle& o : *list)
      (o.contact.model == ContactModel::kConstraint ? loads.constraint_obstacles : loads.obstacles)
          .push_back(o);
  return loads;
}

PosedObstacles pose_obstacles(const StepLoads& loads, double t) {
  PosedObstacles posed;
  for (const auto* list : {&loads.obstacles, &loads.constraint_obstacles})
    for (const Obstacle& o : *list) {
      posed.obstacles.push_back(posed_at(o, t));
      posed.poses.emplace_back(o.trajectory->position(t), o.trajectory->velocity(t));
    }
  return posed;
}

void evaluate_step_forces(const SimulationModel& model, const StepLoads& loads, const Vec3Array& p,
                          double t_next, StepInternalForces& internal, ForceOutput& forces,
                          ExternalForceOutput& external) {
  internal.evaluate(p, kEvalForces | kEvalStiffness, forces);
  evaluate_external_forces(loads.anchors, loads.obstacles, model.mass, model.gravity, p, t_next,
                           external);
  add_surface_loads(model.surface_loads, p, t_next, external);
  add_surface_load_stiffness(model.surface_loads, *model.topology, p, t_next, external);
}

}  // namespace softbody
