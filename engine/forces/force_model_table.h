// The one table of material models: name, how to build it, and its strain energy per
// tetrahedron. make_force_model, force_model_names, strain_energy_density, the scene parser's
// error messages and the forces benchmark all read it, so a model is named once.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/forces/force_model.h"
#include "engine/forces/rest_geometry.h"

namespace softbody {

struct ForceModelEntry {
  const char* name;
  std::unique_ptr<ForceModel> (*make)(std::shared_ptr<const MeshTopology> topology,
                                      const Vec3Array& rest, const Material& material);
  // Strain energy of one tetrahedron at p (without the volumetric term): per element, models
  // that are the same law share the expression (stvk-edge's energy is stvk-tl's).
  double (*element_energy)(const Vec3Array& p, const Vec3Array& rest, const Tet& tet,
                           const TetRestGeometry& g, const Material& material);
};

const std::vector<ForceModelEntry>& force_model_table();
// The entry named `name`; std::invalid_argument listing the names otherwise.
const ForceModelEntry& force_model_entry(const std::string& name);

}  // namespace softbody
