// The scene's top-level `contact` section (how constraint contact is solved) and the check that a
// scene with constraint obstacles has a linear solver that keeps a factor.
#pragma once

#include "engine/scene/json_reader.h"
#include "engine/sim/simulation.h"

namespace softbody {

ContactOptions read_contact_options(JsonReader& root);

// Constraint contact builds its compliance from the step solver's factor: true when `solver` keeps
// one (auto, direct, or a Krylov method with the factor preconditioner).
bool solver_keeps_factor(const SolverOptions& solver);

// True when a step under `options` solves constraint contact itself: its integrator has a contact
// stage and its solver keeps a factor. (Elsewhere a constraint obstacle is refused by the scene,
// or acts as a penalty energy in the fast solvers.) What a tool's CONTACT_MODEL_AUTO resolves by.
bool steps_constraint_contact(const IntegratorOptions& options);

// Throws a SceneError at /obstacles/i/contact/model for the first constraint obstacle when the
// solver keeps no factor.
void check_constraint_contact(const SimulationModel& model, JsonReader& root);

}  // namespace softbody
