#include "engine/forces/energy_density.h"

#include <stdexcept>

#include "engine/forces/edge_constants.h"
#include "engine/forces/element_models.h"
#include "engine/forces/volumetric.h"
#include "engine/mesh/topology.h"

namespace softbody {

std::vector<double> strain_energy_density(const std::string& model, const TetMesh& rest,
                                          const Material& material, VolumetricKind volumetric,
                                          const Vec3Array& p) {
  const std::vector<TetRestGeometry> geometry = compute_rest_geometry(rest.vertices, rest.tets);
  const double lambda = material.lambda(), mu = material.mu();
  std::vector<double> density(rest.tets.size());
  for (size_t t = 0; t < rest.tets.size(); ++t) {
    const Tet& tet = rest.tets[t];
    const TetRestGeometry& g = geometry[t];
    ElementContribution c;
    double w = 0;
    if (model == "stvk-edge" || model == "stvk-tl") {
      // Both are the same StVK energy; per element it is the total-Lagrangian expression.
      stvk_tl_element(p, tet, g, lambda, mu, kEvalEnergy, c);
      w = c.energy;
    } else if (model == "corotational") {
      corotational_element(p, tet, g, lambda, mu, kEvalEnergy, c);
      w = c.energy;
    } else if (model == "nsn") {
      // The spring energy 1/4 L(E) zeta^2 split by the element contributions L_T(E,E) to L(E).
      const EdgeConstants l = tet_edge_constants(g, lambda, mu);
      for (int k = 0; k < 6; ++k) {
        const Vec3 d = p[static_cast<size_t>(tet[static_cast<size_t>(kTetEdgeLocal[k][0])])] -
                       p[static_cast<size_t>(tet[static_cast<size_t>(kTetEdgeLocal[k][1])])];
        const Vec3 d0 =
            rest.vertices[static_cast<size_t>(tet[static_cast<size_t>(kTetEdgeLocal[k][0])])] -
            rest.vertices[static_cast<size_t>(tet[static_cast<size_t>(kTetEdgeLocal[k][1])])];
        const double zeta = d.squaredNorm() - d0.squaredNorm();
        w += 0.25 * l(k, k) * zeta * zeta;
      }
    } else {
      throw std::invalid_argument("unknown force model '" + model + "'");
    }
    const double theta = six_signed_volume(p, tet) / six_signed_volume(rest.vertices, tet) - 1;
    double psi, dpsi, ddpsi;
    volumetric_density(volumetric, material, theta, psi, dpsi, ddpsi);
    w += g.volume * psi;
    density[t] = w / g.volume;
  }
  return density;
}

}  // namespace softbody
