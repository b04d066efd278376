#include "engine/forces/stvk_edge.h"

#include <algorithm>
#include <stdexcept>

#include "engine/forces/edge_constants.h"
#include "engine/forces/element_models.h"
#include "engine/mesh/quality.h"
#include "engine/parallel/parallel.h"

namespace softbody {
namespace {}  // namespace

struct StvkEdgeWorkspace : ForceWorkspace {
  Vec3Array ptilde;  // current edge vectors
  std::vector<double> zeta;
  std::vector<double> g;
  std::vector<double> sliver_energy;
};

StvkEdgeModel::StvkEdgeModel(std::shared_ptr<const MeshTopology> topology, const Vec3Array& rest,
                             const Material& material, bool include_tseps, double sliver_quality)
    : ForceModel(std::move(topology)),
      include_tseps_(include_tseps),
      lambda_(material.lambda()),
      mu_(material.mu()) {
  const MeshTopology& topo = *topology_;
  if (static_cast<Index>(rest.size()) != topo.num_vertices())
    throw std::invalid_argument("rest positions do not match the mesh");
  material.check();
  const double lambda = material.lambda(), mu = material.mu();
  const auto& edges = topo.edges();
  const auto& tseps = topo.tseps();
  h_.resize(edges.size());
  for (size_t e = 0; e < edges.size(); ++e)
    h_[e] = (rest[static_cast<size_t>(edges[e][0])] - rest[static_cast<size_t>(edges[e][1])])
                .squaredNorm();
  l_edge_.assign(edges.size(), 0.0);
  l_tsep_.assign(tseps.size(), 0.0);

  auto find_tsep = [&](Index a, Index b) {
    std::array<Index, 2> key = {std::min(a, b), std::max(a, b)};
    auto it =
        std::lower_bound(tseps.begin(), tseps.end(), key,
                         [](const Tsep& t, const std::array<Index, 2>& k) { return t.edge < k; });
    return static_cast<size_t>(it - tseps.begin());
  };

  std::vector<TetRestGeometry> geometry = compute_rest_geometry(rest, topo.tets());
  for (Index t = 0; t < topo.num_tets(); ++t) {
    const TetRestGeometry& g = geometry[static_cast<size_t>(t)];
    if (include_tseps_ && tet_quality(rest, topo.tets()[static_cast<size_t>(t)]) < sliver_quality) {
      sliver_tets_.push_back(t);
      continue;
    }
    const EdgeConstants l_t = tet_edge_constants(g, lambda, mu);
    for (int k = 0; k < 6; ++k) {
      l_edge_[static_cast<size_t>(topo.tet_edge(t, k))] += l_t(k, k);
      for (int l = k + 1; l < 6; ++l)
        l_tsep_[find_tsep(topo.tet_edge(t, k), topo.tet_edge(t, l))] += l_t(k, l);
    }
  }
  if (include_tseps_) build_gather_lists();
  sliver_geometry_.resize(geometry.size());
  for (Index t : sliver_tets_)
    sliver_geometry_[static_cast<size_t>(t)] = geometry[static_cast<size_t>(t)];
  sliver_coloring_ = color_tets(topo, &sliver_tets_);
}

void StvkEdgeModel::build_gather_lists() {
  const MeshTopology& topo = *topology_;
  const auto& tseps = topo.tseps();
  const size_t ne = static_cast<size_t>(topo.num_edges());

  // g-lists: every TSEP appears in the list of each of its two edges.
  g_offsets_.assign(ne + 1, 0);
  for (const Tsep& p : tseps) {
    ++g_offsets_[static_cast<size_t>(p.edge[0]) + 1];
    ++g_offsets_[static_cast<size_t>(p.edge[1]) + 1];
  }
  for (size_t e = 0; e < ne; ++e) g_offsets_[e + 1] += g_offsets_[e];
  g_other_.resize(static_cast<size_t>(g_offsets_[ne]));
  g_l_.resize(g_other_.size());
  std::vector<Index> fill(g_offsets_.begin(), g_offsets_.end() - 1);
  for (size_t p = 0; p < tseps.size(); ++p) {
    const Tsep& t = tseps[p];
    for (int side = 0; side < 2; ++side) {
      const auto slot =
          static_cast<size_t>(fill[static_cast<size_t>(t.edge[static_cast<size_t>(side)])]++);
      g_other_[slot] = t.edge[static_cast<size_t>(1 - side)];
      g_l_[slot] = l_tsep_[p];
    }
  }

  // K-lists (seed 003 eq. 31 / algKE): K_p = 2 L(P) ptilde(E_p0) ptilde(E_p1)^T goes with sign
  // (-1)^(i+j) into K(E_p2(P,i,j)), transposed where s(P,i,j) = -1.
  std::vector<Index> k_offsets(ne + 1, 0);
  for (const Tsep& t : tseps) {
    for (size_t i = 0; i < 2; ++i) {
      for (size_t j = 0; j < 2; ++j) {
        if (t.s[i][j] != 0) ++k_offsets[static_cast<size_t>(t.e_p2[i][j]) + 1];
      }
    }
  }
  for (size_t e = 0; e < ne; ++e) k_offsets[e + 1] += k_offsets[e];
  std::vector<KTerm> terms(static_cast<size_t>(k_offsets[ne]));
  fill.assign(k_offsets.begin(), k_offsets.end() - 1);
  for (size_t p = 0; p < tseps.size(); ++p) {
    const Tsep& t = tseps[p];
    for (size_t i = 0; i < 2; ++i) {
      for (size_t j = 0; j < 2; ++j) {
        if (t.s[i][j] == 0) continue;
        double coef = ((i + j) % 2 == 0 ? 2.0 : -2.0) * l_tsep_[p];
        KTerm term =
            t.s[i][j] > 0 ? KTerm{coef, t.edge[0], t.edge[1]} : KTerm{coef, t.edge[1], t.edge[0]};
        terms[static_cast<size_t>(fill[static_cast<size_t>(t.e_p2[i][j])]++)] = term;
      }
    }
  }
  // Sort each edge's terms by u and cut them into groups of equal u.
  k_group_offsets_.assign(ne + 1, 0);
  k_coef_.reserve(terms.size());
  k_v_.reserve(terms.size());
  for (size_t e = 0; e < ne; ++e) {
    auto first = terms.begin() + k_offsets[e], last = terms.begin() + k_offsets[e + 1];
    std::sort(first, last,
              [](const KTerm& a, const KTerm& b) { return a.u != b.u ? a.u < b.u : a.v < b.v; });
    for (auto it = first; it != last; ++it) {
      if (it == first || it->u != (it - 1)->u) {
        k_group_u_.push_back(it->u);
        k_group_end_.push_back(0);
      }
      k_coef_.push_back(it->coef);
      k_v_.push_back(it->v);
      k_group_end_.back() = static_cast<Index>(k_coef_.size());
    }
    k_group_offsets_[e + 1] = static_cast<Index>(k_group_u_.size());
  }
}

std::unique_ptr<ForceWorkspace> StvkEdgeModel::make_workspace() const {
  auto ws = std::make_unique<StvkEdgeWorkspace>();
  const auto ne = static_cast<size_t>(topology_->num_edges());
  ws->ptilde.resize(ne);
  ws->zeta.resize(ne);
  ws->g.resize(ne);
  return ws;
}

void StvkEdgeModel::evaluate(const Vec3Array& p, unsigned what, ForceWorkspace& workspace,
                             ForceOutput& out) const {
  auto& ws = dynamic_cast<StvkEdgeWorkspace&>(workspace);
  const MeshTopology& topo = *topology_;
  const auto& edges = topo.edges();
  const std::ptrdiff_t ne = topo.num_edges();
  prepare_output(what, out, /*zero=*/false);  // every f(V), K(V), K(E) is assigned below

  // algF, first loop: edge vectors and squared-length changes (eq. 15).
  parallel_for(ne, [&](std::ptrdiff_t e) {
    const EdgeVertices& ev = edges[static_cast<size_t>(e)];
    Vec3 d = p[static_cast<size_t>(ev[0])] - p[static_cast<size_t>(ev[1])];
    ws.ptilde[static_cast<size_t>(e)] = d;
    ws.zeta[static_cast<size_t>(e)] = d.squaredNorm() - h_[static_cast<size_t>(e)];
  });
  // g(E) = L(E) zeta(E) + sum over TSEPs containing E of L(P) zeta(other edge) (eq. 28).
  parallel_for(ne, [&](std::ptrdiff_t e) {
    double g = l_edge_[static_cast<size_t>(e)] * ws.zeta[static_cast<size_t>(e)];
    if (include_tseps_) {
      for (Index k = g_offsets_[static_cast<size_t>(e)]; k < g_offsets_[static_cast<size_t>(e) + 1];
           ++k) {
        g += g_l_[static_cast<size_t>(k)] *
             ws.zeta[static_cast<size_t>(g_other_[static_cast<size_t>(k)])];
      }
    }
    ws.g[static_cast<size_t>(e)] = g;
  });
  if (what & kEvalEnergy) {
    // W = 1/4 sum_E zeta(E) g(E), which expands to eq. 24.
    out.energy = 0.25 * deterministic_sum(ne, [&](std::ptrdiff_t e) {
                   return ws.zeta[static_cast<size_t>(e)] * ws.g[static_cast<size_t>(e)];
                 });
  }
  if (what & kEvalForces) {
    // f(V) = sum_E t(V,E) ptilde(E) g(E) (eq. 25).
    parallel_for(topo.num_vertices(), [&](std::ptrdiff_t v) {
      Vec3 f = Vec3::Zero();
      for (const VertexEdge& ve : topo.vertex_edges(static_cast<Index>(v))) {
        f += (ve.sign * ws.g[static_cast<size_t>(ve.edge)]) *
             ws.ptilde[static_cast<size_t>(ve.edge)];
      }
      out.f[static_cast<size_t>(v)] = f;
    });
  }
  if (what & kEvalStiffness) {
    // algKE: K(E) = -g I - 2 L(E) ptilde ptilde^T + TSEP terms (eq. 31).
    parallel_for(ne, [&](std::ptrdiff_t e) {
      const Vec3& d = ws.ptilde[static_cast<size_t>(e)];
      Mat3 k = (-2.0 * l_edge_[static_cast<size_t>(e)] * d) * d.transpose();
      k.diagonal().array() -= ws.g[static_cast<size_t>(e)];
      if (include_tseps_) {
        // One outer product per group of terms sharing u: ptilde(u) (sum coef ptilde(v))^T.
        Index term =
            k_group_offsets_[static_cast<size_t>(e)] == 0
                ? 0
                : k_group_end_[static_cast<size_t>(k_group_offsets_[static_cast<size_t>(e)]) - 1];
        for (Index grp = k_group_offsets_[static_cast<size_t>(e)];
             grp < k_group_offsets_[static_cast<size_t>(e) + 1]; ++grp) {
          Vec3 w = Vec3::Zero();
          for (; term < k_group_end_[static_cast<size_t>(grp)]; ++term) {
            w += k_coef_[static_cast<size_t>(term)] *
                 ws.ptilde[static_cast<size_t>(k_v_[static_cast<size_t>(term)])];
          }
          k.noalias() +=
              ws.ptilde[static_cast<size_t>(k_group_u_[static_cast<size_t>(grp)])] * w.transpose();
        }
      }
      out.K.edge_blocks[static_cast<size_t>(e)] = k;
    });
    // algKV: K(V) = -sum K(E) over edges leaving V - sum K(E)^T over edges entering V (eq. 30).
    parallel_for(topo.num_vertices(), [&](std::ptrdiff_t v) {
      Mat3 k = Mat3::Zero();
      for (const VertexEdge& ve : topo.vertex_edges(static_cast<Index>(v))) {
        const Mat3& ke = out.K.edge_blocks[static_cast<size_t>(ve.edge)];
        if (ve.sign > 0) {
          k -= ke;
        } else {
          k -= ke.transpose();
        }
      }
      out.K.vertex_blocks[static_cast<size_t>(v)] = k;
    });
  }
  // Slivers, element-wise, in colour classes (fixed summation order for any thread count).
  if (sliver_tets_.empty()) return;
  auto& energies = ws.sliver_energy;
  energies.resize(sliver_geometry_.size());  // every sliver's entry is written below before use
  for_each_by_color(sliver_coloring_.color_offsets, [&](std::ptrdiff_t k) {
    const Index t = sliver_coloring_.order[static_cast<size_t>(k)];
    ElementContribution local;
    stvk_tl_element(p, topo.tets()[static_cast<size_t>(t)],
                    sliver_geometry_[static_cast<size_t>(t)], lambda_, mu_, what, local);
    energies[static_cast<size_t>(t)] = local.energy;
    scatter_element(topo, t, what, local, out);
  });
  if (what & kEvalEnergy) {
    for (Index t : sliver_tets_) out.energy += energies[static_cast<size_t>(t)];
  }
}

}  // namespace softbody
