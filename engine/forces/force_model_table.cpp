#include "engine/forces/force_model_table.h"

#include <stdexcept>

#include "engine/forces/edge_constants.h"
#include "engine/forces/element_models.h"
#include "engine/forces/hyperelastic.h"
#include "engine/forces/stvk_edge.h"

namespace softbody {
namespace {

double stvk_energy(const Vec3Array& p, const Vec3Array&, const Tet& tet, const TetRestGeometry& g,
                   const Material& material) {
  ElementContribution c;
  stvk_tl_element(p, tet, g, material.lambda(), material.mu(), kEvalEnergy, c);
  return c.energy;
}

template <typename Kernel>
double kernel_energy(const Vec3Array& p, const Vec3Array&, const Tet& tet, const TetRestGeometry& g,
                     const Material& material) {
  ElementContribution c;
  make_kernel<Kernel>(material).element(p, tet, g, material.lambda(), material.mu(), kEvalEnergy,
                                        c);
  return c.energy;
}

// The spring energy 1/4 L(E) zeta^2 split by the element contributions L_T(E,E) to L(E).
double spring_network_energy(const Vec3Array& p, const Vec3Array& rest, const Tet& tet,
                             const TetRestGeometry& g, const Material& material) {
  const EdgeConstants l = tet_edge_constants(g, material.lambda(), material.mu());
  double w = 0;
  for (int k = 0; k < 6; ++k) {
    const auto a = static_cast<size_t>(tet[static_cast<size_t>(kTetEdgeLocal[k][0])]);
    const auto b = static_cast<size_t>(tet[static_cast<size_t>(kTetEdgeLocal[k][1])]);
    const double zeta = (p[a] - p[b]).squaredNorm() - (rest[a] - rest[b]).squaredNorm();
    w += 0.25 * l(k, k) * zeta * zeta;
  }
  return w;
}

template <bool kTsepLoops>
std::unique_ptr<ForceModel> make_edge_model(std::shared_ptr<const MeshTopology> topology,
                                            const Vec3Array& rest, const Material& material) {
  return std::make_unique<StvkEdgeModel>(std::move(topology), rest, material, kTsepLoops);
}

template <typename Model>
std::unique_ptr<ForceModel> make_model(std::shared_ptr<const MeshTopology> topology,
                                       const Vec3Array& rest, const Material& material) {
  return std::make_unique<Model>(std::move(topology), rest, material);
}

// Mooney-Rivlin with equal shear terms is polyconvex only for lambda >= mu (hyperelastic.h).
std::unique_ptr<ForceModel> make_mooney_rivlin(std::shared_ptr<const MeshTopology> topology,
                                               const Vec3Array& rest, const Material& material) {
  if (!(material.lambda() >= material.mu() * (1 - 1e-9)))
    throw std::invalid_argument(
        "mooney-rivlin needs lambda >= mu (nu >= 0.25) to stay polyconvex; use neo-hookean");
  return std::make_unique<ElementModel<MooneyRivlinKernel>>(std::move(topology), rest, material);
}

// Neo-Hooke's c = lambda / 4 is negative for nu < 0: the J^2 term would then lower the energy of
// an expanding element without bound (hyperelastic.h).
std::unique_ptr<ForceModel> make_neo_hookean(std::shared_ptr<const MeshTopology> topology,
                                             const Vec3Array& rest, const Material& material) {
  if (!(material.lambda() >= 0))
    throw std::invalid_argument(
        "neo-hookean needs lambda >= 0 (nu >= 0): below it its energy has no lower bound under "
        "expansion");
  return std::make_unique<ElementModel<NeoHookeanKernel>>(std::move(topology), rest, material);
}

// Clamped Neo-Hooke: as Neo-Hooke, lambda >= 0; its clamp inside (0, 1).
std::unique_ptr<ForceModel> make_clamped_neo_hookean(std::shared_ptr<const MeshTopology> topology,
                                                     const Vec3Array& rest,
                                                     const Material& material) {
  if (!(material.lambda() >= 0))
    throw std::invalid_argument(
        "cnh needs lambda >= 0 (nu >= 0): below it its energy has no lower bound under expansion");
  if (!(material.cnh_threshold > 0 && material.cnh_threshold < 1))
    throw std::invalid_argument("cnh_threshold must lie in (0, 1)");
  return std::make_unique<ElementModel<ClampedNeoHookeanKernel>>(std::move(topology), rest,
                                                                 material);
}

}  // namespace

const std::vector<ForceModelEntry>& force_model_table() {
  static const std::vector<ForceModelEntry> table = {
      {"stvk-edge", make_edge_model<true>, stvk_energy},
      {StvkTotalLagrangianKernel::kName, make_model<StvkTotalLagrangianModel>, stvk_energy},
      {"nsn", make_edge_model<false>, spring_network_energy},
      {CorotationalKernel::kName, make_model<CorotationalModel>, kernel_energy<CorotationalKernel>},
      {NeoHookeanKernel::kName, make_neo_hookean, kernel_energy<NeoHookeanKernel>},
      {MooneyRivlinKernel::kName, make_mooney_rivlin, kernel_energy<MooneyRivlinKernel>},
      {HybridKernel::kName, make_model<ElementModel<HybridKernel>>, kernel_energy<HybridKernel>},
      {SnhKernel::kName, make_model<ElementModel<SnhKernel>>, kernel_energy<SnhKernel>},
      {SnhSmithKernel::kName, make_model<ElementModel<SnhSmithKernel>>,
       kernel_energy<SnhSmithKernel>},
      {ClampedNeoHookeanKernel::kName, make_clamped_neo_hookean,
       kernel_energy<ClampedNeoHookeanKernel>},
  };
  return table;
}

const ForceModelEntry& force_model_entry(const std::string& name) {
  std::string list;
  for (const ForceModelEntry& e : force_model_table()) {
    if (name == e.name) return e;
    list += (list.empty() ? "" : ", ") + std::string(e.name);
  }
  throw std::invalid_argument("unknown force model '" + name + "' (" + list + ")");
}

}  // namespace softbody
