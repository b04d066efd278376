#include "engine/forces/vertex_springs.h"

#include <stdexcept>

namespace softbody {

VertexSpringModel::VertexSpringModel(std::shared_ptr<const MeshTopology> topology, Vec3Array rest,
                                     std::vector<double> stiffness)
    : ForceModel(std::move(topology)), rest_(std::move(rest)), stiffness_(std::move(stiffness)) {
  const auto n = static_cast<size_t>(topology_->num_vertices());
  if (rest_.size() != n || stiffness_.size() != n)
    throw std::invalid_argument("vertex springs: one rest position and stiffness per vertex");
}

void VertexSpringModel::evaluate(const Vec3Array& p, unsigned what, ForceWorkspace&,
                                 ForceOutput& out) const {
  prepare_output(what, out);
  for (size_t i = 0; i < rest_.size(); ++i) {
    const Vec3 u = p[i] - rest_[i];
    if (what & kEvalEnergy) out.energy += 0.5 * stiffness_[i] * u.squaredNorm();
    if (what & kEvalForces) out.f[i] = stiffness_[i] * u;
    if (what & kEvalStiffness) out.K.vertex_blocks[i] = stiffness_[i] * Mat3::Identity();
  }
}

}  // namespace softbody
