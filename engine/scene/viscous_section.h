// The viscous part of a scene's "material" section: "viscoelastic" (a Prony series on the
// deviatoric strain, with bulk viscosity) and "rate_damping" (the correspondence principle's
// strain-rate damping). See docs/scenes.md.
#pragma once

#include "engine/forces/material.h"
#include "engine/forces/viscoelastic.h"
#include "engine/scene/json_reader.h"

namespace softbody {

// Reads material.viscoelastic and material.rate_damping (both optional) from `material_section`;
// an empty result when neither is given. Bad values fail naming their JSON path.
ViscousMaterial read_viscous_material(JsonReader& material_section, const Material& elastic);

}  // namespace softbody
