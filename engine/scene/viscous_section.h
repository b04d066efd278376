// The viscous part of a scene's "material" section: "viscoelastic" (a Prony series on the
// deviatoric strain, with bulk viscosity) and "rate_damping" (the correspondence principle's
// strain-rate damping). See docs/scenes.md.
#pragma once

#include <optional>

#include "engine/forces/constant_q.h"
#include "engine/forces/material.h"
#include "engine/forces/viscoelastic.h"
#include "engine/scene/json_reader.h"

namespace softbody {

// material.viscoelastic.constant_q {Q, mu, frequency[, terms]} fitted to Prony terms
// (constant_q.h), when given: its long-term modulus is the elastic law's shear modulus (the scene
// gives no E).
std::optional<ConstantQFit> read_constant_q(JsonReader& material_section);

// Reads material.viscoelastic and material.rate_damping (both optional) from `material_section`;
// an empty result when neither is given. `constant_q`: read_constant_q's result. Bad values fail
// naming their JSON path.
ViscousMaterial read_viscous_material(JsonReader& material_section, const Material& elastic,
                                      const std::optional<ConstantQFit>& constant_q);

}  // namespace softbody
