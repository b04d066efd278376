#include "engine/forces/energy_density.h"

#include "engine/forces/force_model_table.h"
#include "engine/forces/volumetric.h"
#include "engine/mesh/topology.h"

namespace softbody {

std::vector<double> strain_energy_density(const std::string& model, const TetMesh& rest,
                                          const Material& material, VolumetricKind volumetric,
                                          const Vec3Array& p) {
  const std::vector<TetRestGeometry> geometry = compute_rest_geometry(rest.vertices, rest.tets);
  const double lambda = material.lambda(), mu = material.mu();
  const ForceModelEntry& entry = force_model_entry(model);
  std::vector<double> density(rest.tets.size());
  for (size_t t = 0; t < rest.tets.size(); ++t) {
    const Tet& tet = rest.tets[t];
    const TetRestGeometry& g = geometry[t];
    double w = entry.element_energy(p, rest.vertices, tet, g, lambda, mu);
    const double theta = six_signed_volume(p, tet) / six_signed_volume(rest.vertices, tet) - 1;
    double psi, dpsi, ddpsi;
    volumetric_density(volumetric, material, theta, psi, dpsi, ddpsi);
    w += g.volume * psi;
    density[t] = w / g.volume;
  }
  return density;
}

}  // namespace softbody
