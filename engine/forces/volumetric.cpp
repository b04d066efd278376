#include "engine/forces/volumetric.h"

#include <algorithm>
#include <stdexcept>

#include "engine/forces/tet_volume.h"
#include "engine/parallel/parallel.h"

namespace softbody {

void volumetric_density(VolumetricKind kind, const Material& material, double theta, double& psi,
                        double& dpsi, double& ddpsi) {
  psi = dpsi = ddpsi = 0;
  const double e = material.youngs_modulus, nu = material.poisson_ratio;
  switch (kind) {
    case VolumetricKind::kNone:
      return;
    case VolumetricKind::kCubic:
      if (theta < 0) {
        const double k_vol = e / (4 * (1 - 2 * nu));
        psi = -k_vol * theta * theta * theta / 3;
        dpsi = -k_vol * theta * theta;
        ddpsi = -2 * k_vol * theta;
      }
      return;
    case VolumetricKind::kQuadratic: {
      const double kappa = 0.1 * e / (6 * (1 - 2 * nu));
      psi = kappa * theta * theta;
      dpsi = 2 * kappa * theta;
      ddpsi = 2 * kappa;
      return;
    }
  }
}

VolumetricTerm::VolumetricTerm(std::shared_ptr<const MeshTopology> topology, const Vec3Array& rest,
                               const Material& material, VolumetricKind kind)
    : topology_(std::move(topology)), kind_(kind), material_(material) {
  material.check();
  const auto& tets = topology_->tets();
  rest_six_volume_.resize(tets.size());
  for (size_t t = 0; t < tets.size(); ++t) rest_six_volume_[t] = six_signed_volume(rest, tets[t]);
  build_vertex_corners(*topology_, vertex_corner_offsets_, vertex_corners_);
  build_edge_slots(*topology_, edge_slot_offsets_, edge_slots_);
}

void VolumetricTerm::add_element(const Vec3Array& p, Index t, unsigned what,
                                 ElementContribution& c) const {
  if (kind_ == VolumetricKind::kNone) return;
  const Tet& tet = topology_->tets()[static_cast<size_t>(t)];
  const double c0 = rest_six_volume_[static_cast<size_t>(t)];
  std::array<Vec3, 4> grad;
  const double theta = six_volume_and_gradient(p, tet, grad) / c0 - 1;
  double psi, dpsi, ddpsi;
  volumetric_density(kind_, material_, theta, psi, dpsi, ddpsi);
  const double a1 = dpsi / 6, a2 = ddpsi / (6 * c0);
  if (what & kEvalEnergy) c.energy += c0 / 6 * psi;
  if (what & kEvalForces)
    for (size_t k = 0; k < 4; ++k) c.f[k] += a1 * grad[k];
  if (!(what & kEvalStiffness)) return;
  if (what & kEvalOneVertex) {
    const auto k = static_cast<size_t>(c.vertex);
    c.diagonal[k].noalias() += (a2 * grad[k]) * grad[k].transpose();
    return;
  }
  for (size_t k = 0; k < 4; ++k) c.diagonal[k].noalias() += (a2 * grad[k]) * grad[k].transpose();
  for (int k = 0; k < 6; ++k) {
    const auto i = static_cast<size_t>(kTetEdgeLocal[static_cast<size_t>(k)][0]);
    const auto j = static_cast<size_t>(kTetEdgeLocal[static_cast<size_t>(k)][1]);
    c.edge[static_cast<size_t>(k)].noalias() +=
        (a2 * grad[i]) * grad[j].transpose() + a1 * six_volume_hessian_block(p, tet, k);
  }
}

void VolumetricTerm::add(const Vec3Array& p, unsigned what, Workspace& workspace,
                         ForceOutput& out) const {
  if (kind_ == VolumetricKind::kNone) return;
  const auto& tets = topology_->tets();
  std::vector<TetState>& state = workspace.state;
  std::vector<double>& energy = workspace.energy;
  state.resize(tets.size());
  energy.resize(tets.size());
  parallel_for(static_cast<std::ptrdiff_t>(tets.size()), [&](std::ptrdiff_t ti) {
    const auto t = static_cast<size_t>(ti);
    TetState& s = state[t];
    const double c0 = rest_six_volume_[t];
    const double theta = six_volume_and_gradient(p, tets[t], s.grad) / c0 - 1;
    double psi, dpsi, ddpsi;
    volumetric_density(kind_, material_, theta, psi, dpsi, ddpsi);
    energy[t] = c0 / 6 * psi;
    s.a1 = dpsi / 6;
    s.a2 = ddpsi / (6 * c0);
  });
  if (what & kEvalEnergy) {
    out.energy +=
        deterministic_sum(static_cast<std::ptrdiff_t>(tets.size()),
                          [&](std::ptrdiff_t t) { return energy[static_cast<size_t>(t)]; });
  }
  if (what & kEvalForces) {
    parallel_for(topology_->num_vertices(), [&](std::ptrdiff_t v) {
      Vec3 f = Vec3::Zero();
      for (Index k = vertex_corner_offsets_[static_cast<size_t>(v)];
           k < vertex_corner_offsets_[static_cast<size_t>(v) + 1]; ++k) {
        const Index corner = vertex_corners_[static_cast<size_t>(k)];
        const TetState& s = state[static_cast<size_t>(corner / 4)];
        f += s.a1 * s.grad[static_cast<size_t>(corner % 4)];
      }
      out.f[static_cast<size_t>(v)] += f;
    });
  }
  if (!(what & kEvalStiffness)) return;
  parallel_for(topology_->num_vertices(), [&](std::ptrdiff_t v) {
    Mat3 k = Mat3::Zero();
    for (Index c = vertex_corner_offsets_[static_cast<size_t>(v)];
         c < vertex_corner_offsets_[static_cast<size_t>(v) + 1]; ++c) {
      const Index corner = vertex_corners_[static_cast<size_t>(c)];
      const TetState& s = state[static_cast<size_t>(corner / 4)];
      const Vec3& g = s.grad[static_cast<size_t>(corner % 4)];
      k.noalias() += (s.a2 * g) * g.transpose();
    }
    out.K.vertex_blocks[static_cast<size_t>(v)] += k;
  });
  parallel_for(topology_->num_edges(), [&](std::ptrdiff_t e) {
    Mat3 k = Mat3::Zero();
    for (Index c = edge_slot_offsets_[static_cast<size_t>(e)];
         c < edge_slot_offsets_[static_cast<size_t>(e) + 1]; ++c) {
      const Index slot = edge_slots_[static_cast<size_t>(c)];
      const Index t = slot / 6;
      const int local = slot % 6;
      const TetState& s = state[static_cast<size_t>(t)];
      if (s.a1 == 0 && s.a2 == 0) continue;
      const Tet& tet = tets[static_cast<size_t>(t)];
      const auto i = static_cast<size_t>(kTetEdgeLocal[static_cast<size_t>(local)][0]);
      const auto j = static_cast<size_t>(kTetEdgeLocal[static_cast<size_t>(local)][1]);
      // d f_i / d p_j for the local orientation i -> j; transposed if the edge runs j -> i.
      Mat3 kij = (s.a2 * s.grad[i]) * s.grad[j].transpose() +
                 s.a1 * six_volume_hessian_block(p, tet, local);
      if (topology_->tet_edge_flipped(t, local)) {
        k += kij.transpose();
      } else {
        k += kij;
      }
    }
    out.K.edge_blocks[static_cast<size_t>(e)] += k;
  });
}

}  // namespace softbody
