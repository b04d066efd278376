// Strain energy density per tetrahedron [J/m^3] of a configuration, for output (VTU cell data)
// and for inspecting where a model stores energy. For every model the densities times the rest
// volumes sum to the model's total energy.
#pragma once

#include <string>

#include "engine/forces/material.h"
#include "engine/mesh/tet_mesh.h"

namespace softbody {

// With `nodal_pressure` (as make_force_model builds it): the element law and the volumetric
// penalty with nodal_split's material, and each vertex's nodal volume energy shared among its
// tetrahedra by their part of its volume.
std::vector<double> strain_energy_density(const std::string& model, const TetMesh& rest,
                                          const Material& material, VolumetricKind volumetric,
                                          const Vec3Array& p, bool nodal_pressure = false);

}  // namespace softbody
