// How a scene steps: dt, Rayleigh damping, the integrator and Newton's settings, the linear solver,
// and the robustness limits (rollback speed, retries), into IntegratorOptions.
#pragma once

#include "engine/scene/json_reader.h"
#include "engine/sim/simulation.h"

namespace softbody {

// `viscous_material`: the body's material has its own viscosity (stiffness damping must be 0).
void read_step_options(JsonReader& root, bool viscous_material, IntegratorOptions& o);

// The integrator's demands on the rest of the model (vbd: a per-element energy, no viscosity),
// reported at /integrator/type.
void check_integrator(const SimulationModel& model, JsonReader& root);

}  // namespace softbody
