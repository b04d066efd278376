#include "engine/sim/stages/projective_matrix.h"

#include <algorithm>
#include <stdexcept>

#include "engine/forces/tet_volume.h"

namespace softbody {

ProjectiveMatrix::ProjectiveMatrix(const SimulationModel& model)
    : model_(model),
      weight_(2 * model.material.mu() + model.material.lambda()),
      system_(*model.topology, model.fixed) {
  const MeshTopology& topology = *model.topology;
  laplacian_diagonal_.assign(static_cast<size_t>(topology.num_vertices()), 0.0);
  laplacian_edges_.assign(static_cast<size_t>(topology.num_edges()), 0.0);
  const auto& tets = topology.tets();
  for (size_t t = 0; t < tets.size(); ++t) {
    // The barycentric gradients g_a = dC/dp_a / C with C = 6 V, so V g_a.g_b = (dC_a.dC_b) / (6 C).
    std::array<Vec3, 4> grad;
    const double six_volume = six_volume_and_gradient(model.rest, tets[t], grad);
    if (!(six_volume > 0))
      throw std::invalid_argument("projective matrix: tetrahedron " + std::to_string(t) +
                                  " is inverted or flat at rest");
    const double scale = 1 / (6 * six_volume);
    for (size_t a = 0; a < 4; ++a)
      laplacian_diagonal_[static_cast<size_t>(tets[t][a])] += scale * grad[a].squaredNorm();
    for (int k = 0; k < 6; ++k) {
      const auto a = static_cast<size_t>(kTetEdgeLocal[static_cast<size_t>(k)][0]),
                 b = static_cast<size_t>(kTetEdgeLocal[static_cast<size_t>(k)][1]);
      laplacian_edges_[static_cast<size_t>(topology.tet_edge(static_cast<Index>(t), k))] +=
          scale * grad[a].dot(grad[b]);
    }
  }
}

namespace {

// a + b over the union of their vertices (both sorted by vertex).
std::vector<std::pair<Index, double>> sum(const std::vector<std::pair<Index, double>>& a,
                                          const std::vector<std::pair<Index, double>>& b) {
  std::vector<std::pair<Index, double>> out(a);
  out.insert(out.end(), b.begin(), b.end());
  std::sort(out.begin(), out.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::pair<Index, double>> merged;
  for (const auto& c : out) {
    if (!merged.empty() && merged.back().first == c.first) {
      merged.back().second += c.second;
    } else {
      merged.push_back(c);
    }
  }
  return merged;
}

// (vertex, k + c/h) per anchored vertex, sorted, two anchors on one vertex added.
std::vector<std::pair<Index, double>> anchor_diagonal(std::span<const Anchor> anchors, double h) {
  std::vector<std::pair<Index, double>> change;
  for (const Anchor& a : anchors) change.emplace_back(a.vertex, a.stiffness + a.damping / h);
  return sum(change, {});
}

// current - base over the union of their vertices (entries that differ only).
std::vector<std::pair<Index, double>> difference(
    const std::vector<std::pair<Index, double>>& current,
    const std::vector<std::pair<Index, double>>& base) {
  std::vector<std::pair<Index, double>> out;
  size_t i = 0, j = 0;
  while (i < current.size() || j < base.size()) {
    if (j == base.size() || (i < current.size() && current[i].first < base[j].first)) {
      out.push_back(current[i++]);
    } else if (i == current.size() || base[j].first < current[i].first) {
      out.emplace_back(base[j].first, -base[j].second);
      ++j;
    } else {
      if (current[i].second != base[j].second)
        out.emplace_back(current[i].first, current[i].second - base[j].second);
      ++i;
      ++j;
    }
  }
  return out;
}

}  // namespace

void ProjectiveMatrix::prepare(double h, std::span<const Anchor> anchors,
                               std::vector<std::pair<Index, double>> contacts) {
  const IntegratorOptions& o = model_.options;
  std::sort(contacts.begin(), contacts.end());
  std::vector<std::pair<Index, double>> wanted = anchor_diagonal(anchors, h);
  // Penalty contacts add their normal stiffness (isotropically: A stays scalar per vertex).
  wanted = sum(wanted, contacts);
  std::vector<std::pair<Index, double>> change = difference(wanted, factored_diagonal_);
  // A few anchors more or less than the factor holds (a tool's grab) are a low-rank change;
  // many (a scene's anchors, a new h), or another contact set, are factored in (a scalar factor
  // costs a few per cent of a step).
  if (h != factored_h_ || change.size() > kMaxLowRankChange || contacts != factored_contacts_) {
    const double stiffness_scale = weight_ * (1 + o.beta / h);
    std::vector<double> diagonal(laplacian_diagonal_.size()), edges(laplacian_edges_.size());
    for (size_t i = 0; i < diagonal.size(); ++i)
      diagonal[i] =
          (1 + o.alpha * h) * model_.mass[i] / (h * h) + stiffness_scale * laplacian_diagonal_[i];
    for (const auto& [v, d] : wanted) diagonal[static_cast<size_t>(v)] += d;
    for (size_t e = 0; e < edges.size(); ++e) edges[e] = stiffness_scale * laplacian_edges_[e];
    factor_info_ = system_.factor(diagonal, edges);
    ++factorizations_;
    factored_h_ = h;
    factored_diagonal_ = wanted;
    factored_contacts_ = std::move(contacts);
    change.clear();
  }
  system_.set_diagonal_change(std::move(change));
}

}  // namespace softbody
