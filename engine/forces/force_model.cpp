#include "engine/forces/force_model.h"

#include <algorithm>
#include <stdexcept>

#include "engine/parallel/parallel.h"

#include "engine/forces/force_model_table.h"
#include "engine/forces/nodal_volume.h"
#include "engine/forces/volumetric.h"

namespace softbody {

void ForceModel::add_element(const Vec3Array&, Index, unsigned, ElementContribution&) const {
  throw std::logic_error("force model '" + name() + "' has no per-element form");
}

void ForceModel::prepare_output(unsigned what, ForceOutput& out, bool zero) const {
  prepare_force_output(*topology_, what, out, zero);
}

void prepare_force_output(const MeshTopology& topology, unsigned what, ForceOutput& out,
                          bool zero) {
  out.energy = 0;
  const Index nv = topology.num_vertices(), ne = topology.num_edges();
  if (what & kEvalForces) out.f.resize(static_cast<size_t>(nv));
  if (what & kEvalStiffness) out.K.resize(nv, ne);
  if (!zero) return;
  // Cleared in parallel: on a large mesh this is several megabytes.
  parallel_for(std::max(nv, ne), [&](std::ptrdiff_t i) {
    const auto k = static_cast<size_t>(i);
    if ((what & kEvalForces) && i < nv) out.f[k].setZero();
    if (what & kEvalStiffness) {
      if (i < nv) out.K.vertex_blocks[k].setZero();
      if (i < ne) out.K.edge_blocks[k].setZero();
    }
  });
}

const std::vector<std::string>& force_model_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const ForceModelEntry& e : force_model_table()) n.emplace_back(e.name);
    return n;
  }();
  return names;
}

std::unique_ptr<ForceModel> make_force_model(const std::string& name,
                                             std::shared_ptr<const MeshTopology> topology,
                                             const Vec3Array& rest_positions,
                                             const Material& material, VolumetricKind volumetric,
                                             bool nodal_pressure) {
  // Under nodal pressure the element law and its volumetric penalty (an inversion guard) keep
  // only the split material's lambda: the full one per element would lock again.
  const Material element = nodal_pressure ? nodal_split(material) : material;
  std::unique_ptr<ForceModel> model =
      force_model_entry(name).make(topology, rest_positions, element);
  if (volumetric != VolumetricKind::kNone) {
    VolumetricTerm term(topology, rest_positions, element, volumetric);
    model = std::make_unique<ModelWithVolumetric>(std::move(model), std::move(term));
  }
  if (!nodal_pressure) return model;
  NodalVolumeTerm term(topology, rest_positions, nodal_kappa(material));
  return std::make_unique<ModelWithNodalVolume>(std::move(model), std::move(term));
}

}  // namespace softbody
