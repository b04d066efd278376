#include "engine/forces/energy_density.h"

#include "engine/forces/force_model_table.h"
#include "engine/forces/nodal_volume.h"
#include "engine/forces/volumetric.h"
#include "engine/mesh/topology.h"

namespace softbody {

std::vector<double> strain_energy_density(const std::string& model, const TetMesh& rest,
                                          const Material& material, VolumetricKind volumetric,
                                          const Vec3Array& p, bool nodal_pressure) {
  const std::vector<TetRestGeometry> geometry = compute_rest_geometry(rest.vertices, rest.tets);
  const Material element = nodal_pressure ? nodal_split(material) : material;
  const ForceModelEntry& entry = force_model_entry(model);
  std::vector<double> density(rest.tets.size());
  for (size_t t = 0; t < rest.tets.size(); ++t) {
    const Tet& tet = rest.tets[t];
    const TetRestGeometry& g = geometry[t];
    double w = entry.element_energy(p, rest.vertices, tet, g, element);
    const double theta = six_signed_volume(p, tet) / six_signed_volume(rest.vertices, tet) - 1;
    double psi, dpsi, ddpsi;
    volumetric_density(volumetric, element, theta, psi, dpsi, ddpsi);
    w += g.volume * psi;
    density[t] = w;  // energy for now; per volume below
  }
  if (nodal_pressure) {
    // Vertex a: V_a = sum of its tetrahedra's V/4, J_a the same of the current volumes over V_a,
    // energy kappa V_a (J_a - 1)^2 / 2 (forces/nodal_volume.h); tetrahedron e takes (V_e/4) / V_a.
    const double kappa = nodal_kappa(material);
    std::vector<double> rest_volume(rest.vertices.size(), 0.0), volume(rest.vertices.size(), 0.0);
    for (size_t t = 0; t < rest.tets.size(); ++t) {
      const double now = six_signed_volume(p, rest.tets[t]) / 6;
      for (Index v : rest.tets[t]) {
        rest_volume[static_cast<size_t>(v)] += geometry[t].volume / 4;
        volume[static_cast<size_t>(v)] += now / 4;
      }
    }
    // Each vertex's energy per unit of its rest volume, then each tetrahedron's quarter of it.
    std::vector<double> energy_per_volume(rest.vertices.size());
    for (size_t a = 0; a < rest.vertices.size(); ++a) {
      const double strain = volume[a] / rest_volume[a] - 1;
      energy_per_volume[a] = 0.5 * kappa * strain * strain;
    }
    for (size_t t = 0; t < rest.tets.size(); ++t)
      for (Index v : rest.tets[t])
        density[t] += energy_per_volume[static_cast<size_t>(v)] * geometry[t].volume / 4;
  }
  for (size_t t = 0; t < rest.tets.size(); ++t) density[t] /= geometry[t].volume;
  return density;
}

}  // namespace softbody
