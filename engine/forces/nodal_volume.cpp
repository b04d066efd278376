#include "engine/forces/nodal_volume.h"

#include <algorithm>
#include <stdexcept>

#include "engine/forces/rest_geometry.h"
#include "engine/forces/tet_volume.h"
#include "engine/parallel/parallel.h"

namespace softbody {
namespace {

// CSR lists of values from (key, value) pairs produced by `emit(add)` (called twice).
template <typename Value, typename Emit>
void build_value_csr(size_t num_keys, Emit&& emit, std::vector<Index>& offsets,
                     std::vector<Value>& values) {
  offsets.assign(num_keys + 1, 0);
  emit([&](Index key, const Value&) { ++offsets[static_cast<size_t>(key) + 1]; });
  for (size_t k = 0; k < num_keys; ++k) offsets[k + 1] += offsets[k];
  values.resize(static_cast<size_t>(offsets[num_keys]));
  std::vector<Index> fill(offsets.begin(), offsets.end() - 1);
  emit([&](Index key, const Value& value) {
    values[static_cast<size_t>(fill[static_cast<size_t>(key)]++)] = value;
  });
}

}  // namespace

Material nodal_split(const Material& material) {
  const double mu = material.mu();
  const double lambda = std::min(material.lambda(), kElementLambdaOverMu * mu);
  Material element = material;
  element.youngs_modulus = mu * (3 * lambda + 2 * mu) / (lambda + mu);
  element.poisson_ratio = lambda / (2 * (lambda + mu));
  return element;
}

double nodal_kappa(const Material& material) {
  return material.lambda() - nodal_split(material).lambda();
}

NodalVolumeTerm::NodalVolumeTerm(std::shared_ptr<const MeshTopology> topology,
                                 const Vec3Array& rest, double kappa)
    : topology_(std::move(topology)), kappa_(kappa) {
  const MeshTopology& topo = *topology_;
  if (topo.coupling() != MatrixCoupling::kSecondNeighbours) {
    throw std::invalid_argument(
        "the average nodal pressure couples vertices that share a neighbour: build the topology "
        "with MatrixCoupling::kSecondNeighbours");
  }
  if (!(kappa >= 0)) throw NodalVolumeError("nodal bulk stiffness must be >= 0");
  const auto& tets = topo.tets();
  const auto nv = static_cast<size_t>(topo.num_vertices());
  build_vertex_corners(topo, vertex_corner_offsets_, vertex_corners_);
  build_edge_slots(topo, edge_slot_offsets_, edge_slots_);
  rest_volume_.assign(nv, 0.0);
  for (const Tet& tet : tets) {
    const double c0 = six_signed_volume(rest, tet);
    for (Index v : tet) rest_volume_[static_cast<size_t>(v)] += c0 / 24;
  }
  for (size_t v = 0; v < nv; ++v) {
    if (!(rest_volume_[v] > 0))
      throw NodalVolumeError("average nodal pressure: vertex " + std::to_string(v) +
                             " has no positive volume around it");
  }

  // star(a) = a and its mesh neighbours, ascending.
  std::vector<Index> star;
  star_offsets_.assign(nv + 1, 0);
  for (Index a = 0; a < topo.num_vertices(); ++a) {
    const size_t begin = star.size();
    star.push_back(a);
    for (const VertexEdge& ve : topo.vertex_edges(a)) {
      if (ve.edge >= topo.num_mesh_edges()) continue;
      const EdgeVertices& e = topo.edges()[static_cast<size_t>(ve.edge)];
      star.push_back(e[0] == a ? e[1] : e[0]);
    }
    std::sort(star.begin() + static_cast<std::ptrdiff_t>(begin), star.end());
    star_offsets_[static_cast<size_t>(a) + 1] = static_cast<Index>(star.size());
  }
  auto star_slot = [&](Index a, Index v) {
    const auto first = star.begin() + star_offsets_[static_cast<size_t>(a)];
    const auto last = star.begin() + star_offsets_[static_cast<size_t>(a) + 1];
    return static_cast<Index>(std::lower_bound(first, last, v) - star.begin());
  };
  corner_star_slots_.resize(vertex_corners_.size());
  for (Index a = 0; a < topo.num_vertices(); ++a) {
    for (Index k = vertex_corner_offsets_[static_cast<size_t>(a)];
         k < vertex_corner_offsets_[static_cast<size_t>(a) + 1]; ++k) {
      const Tet& tet = tets[static_cast<size_t>(vertex_corners_[static_cast<size_t>(k)] / 4)];
      for (size_t i = 0; i < 4; ++i)
        corner_star_slots_[static_cast<size_t>(k)][i] = star_slot(a, tet[i]);
    }
  }

  // Every star contributes one rank-one block to each pair of its vertices.
  build_value_csr<Gather>(
      nv,
      [&](auto add) {
        for (Index a = 0; a < topo.num_vertices(); ++a)
          for (Index s = star_offsets_[static_cast<size_t>(a)];
               s < star_offsets_[static_cast<size_t>(a) + 1]; ++s)
            add(star[static_cast<size_t>(s)], Gather{a, s, s});
      },
      vertex_gather_offsets_, vertex_gathers_);
  std::vector<Index> pair_edge;  // the coupled pair of each (a, s < t), in emission order
  for (Index a = 0; a < topo.num_vertices(); ++a)
    for (Index s = star_offsets_[static_cast<size_t>(a)];
         s < star_offsets_[static_cast<size_t>(a) + 1]; ++s)
      for (Index t = s + 1; t < star_offsets_[static_cast<size_t>(a) + 1]; ++t) {
        const Index e = topo.find_edge(star[static_cast<size_t>(s)], star[static_cast<size_t>(t)]);
        if (e < 0) throw std::logic_error("nodal volume: a coupled pair is missing");
        pair_edge.push_back(e);
      }
  build_value_csr<Gather>(
      static_cast<size_t>(topo.num_edges()),
      [&](auto add) {
        size_t next = 0;
        for (Index a = 0; a < topo.num_vertices(); ++a)
          for (Index s = star_offsets_[static_cast<size_t>(a)];
               s < star_offsets_[static_cast<size_t>(a) + 1]; ++s)
            for (Index t = s + 1; t < star_offsets_[static_cast<size_t>(a) + 1]; ++t)
              // Edges run from the lower vertex to the higher, as the star is sorted.
              add(pair_edge[next++], Gather{a, s, t});
      },
      edge_gather_offsets_, edge_gathers_);
}

void NodalVolumeTerm::nodal_volumes(const Vec3Array& p, Workspace& ws) const {
  const auto& tets = topology_->tets();
  ws.grad.resize(tets.size());
  ws.six_volume.resize(tets.size());
  parallel_for(static_cast<std::ptrdiff_t>(tets.size()), [&](std::ptrdiff_t t) {
    ws.six_volume[static_cast<size_t>(t)] =
        six_volume_and_gradient(p, tets[static_cast<size_t>(t)], ws.grad[static_cast<size_t>(t)]);
  });
  const auto nv = static_cast<size_t>(topology_->num_vertices());
  ws.pressure.resize(nv);
  ws.energy.resize(nv);
  parallel_for(static_cast<std::ptrdiff_t>(nv), [&](std::ptrdiff_t vi) {
    const auto v = static_cast<size_t>(vi);
    double six_volume = 0;
    for (Index k = vertex_corner_offsets_[v]; k < vertex_corner_offsets_[v + 1]; ++k)
      six_volume += ws.six_volume[static_cast<size_t>(vertex_corners_[static_cast<size_t>(k)] / 4)];
    const double strain = six_volume / 24 / rest_volume_[v] - 1;  // J_a - 1
    ws.pressure[v] = kappa_ * strain;
    ws.energy[v] = 0.5 * kappa_ * rest_volume_[v] * strain * strain;
  });
}

void NodalVolumeTerm::add(const Vec3Array& p, unsigned what, Workspace& ws,
                          ForceOutput& out) const {
  const MeshTopology& topo = *topology_;
  const auto& tets = topo.tets();
  nodal_volumes(p, ws);
  if (what & kEvalEnergy) {
    out.energy += deterministic_sum(
        topo.num_vertices(), [&](std::ptrdiff_t v) { return ws.energy[static_cast<size_t>(v)]; });
  }
  ws.tet_factor.resize(tets.size());
  parallel_for(static_cast<std::ptrdiff_t>(tets.size()), [&](std::ptrdiff_t t) {
    const Tet& tet = tets[static_cast<size_t>(t)];
    ws.tet_factor[static_cast<size_t>(t)] =
        (ws.pressure[static_cast<size_t>(tet[0])] + ws.pressure[static_cast<size_t>(tet[1])] +
         ws.pressure[static_cast<size_t>(tet[2])] + ws.pressure[static_cast<size_t>(tet[3])]) /
        24;
  });
  if (what & kEvalForces) {
    parallel_for(topo.num_vertices(), [&](std::ptrdiff_t v) {
      Vec3 f = Vec3::Zero();
      for (Index k = vertex_corner_offsets_[static_cast<size_t>(v)];
           k < vertex_corner_offsets_[static_cast<size_t>(v) + 1]; ++k) {
        const Index corner = vertex_corners_[static_cast<size_t>(k)];
        f += ws.tet_factor[static_cast<size_t>(corner / 4)] *
             ws.grad[static_cast<size_t>(corner / 4)][static_cast<size_t>(corner % 4)];
      }
      out.f[static_cast<size_t>(v)] += f;
    });
  }
  if (!(what & kEvalStiffness)) return;
  // dv_a / dp_b over each star.
  ws.star_gradient.resize(static_cast<size_t>(star_offsets_.back()));
  parallel_for(topo.num_vertices(), [&](std::ptrdiff_t a) {
    const auto av = static_cast<size_t>(a);
    for (Index s = star_offsets_[av]; s < star_offsets_[av + 1]; ++s)
      ws.star_gradient[static_cast<size_t>(s)].setZero();
    for (Index k = vertex_corner_offsets_[av]; k < vertex_corner_offsets_[av + 1]; ++k) {
      const auto& grad = ws.grad[static_cast<size_t>(vertex_corners_[static_cast<size_t>(k)] / 4)];
      const auto& slots = corner_star_slots_[static_cast<size_t>(k)];
      for (size_t i = 0; i < 4; ++i)
        ws.star_gradient[static_cast<size_t>(slots[i])] += grad[i] / 24;
    }
  });
  auto rank_one = [&](const Gather& g) {
    return Mat3((kappa_ / rest_volume_[static_cast<size_t>(g.node)] *
                 ws.star_gradient[static_cast<size_t>(g.first)]) *
                ws.star_gradient[static_cast<size_t>(g.second)].transpose());
  };
  parallel_for(topo.num_vertices(), [&](std::ptrdiff_t v) {
    Mat3 k = Mat3::Zero();
    for (Index g = vertex_gather_offsets_[static_cast<size_t>(v)];
         g < vertex_gather_offsets_[static_cast<size_t>(v) + 1]; ++g)
      k += rank_one(vertex_gathers_[static_cast<size_t>(g)]);
    out.K.vertex_blocks[static_cast<size_t>(v)] += k;
  });
  parallel_for(topo.num_edges(), [&](std::ptrdiff_t e) {
    Mat3 k = Mat3::Zero();
    for (Index g = edge_gather_offsets_[static_cast<size_t>(e)];
         g < edge_gather_offsets_[static_cast<size_t>(e) + 1]; ++g)
      k += rank_one(edge_gathers_[static_cast<size_t>(g)]);
    // The pressure's own second derivative of each element volume (mesh edges only).
    for (Index c = edge_slot_offsets_[static_cast<size_t>(e)];
         c < edge_slot_offsets_[static_cast<size_t>(e) + 1]; ++c) {
      const Index slot = edge_slots_[static_cast<size_t>(c)];
      const Index t = slot / 6;
      const int local = slot % 6;
      const Mat3 kij = ws.tet_factor[static_cast<size_t>(t)] *
                       six_volume_hessian_block(p, tets[static_cast<size_t>(t)], local);
      if (topo.tet_edge_flipped(t, local)) {
        k += kij.transpose();
      } else {
        k += kij;
      }
    }
    out.K.edge_blocks[static_cast<size_t>(e)] += k;
  });
}

}  // namespace softbody
