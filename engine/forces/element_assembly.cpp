#include "engine/forces/element_assembly.h"

#include <bitset>
#include <stdexcept>

namespace softbody {

ElementContribution ElementContribution::zero(int vertex) {
  ElementContribution c;
  c.vertex = vertex;
  c.f.fill(Vec3::Zero());
  c.diagonal.fill(Mat3::Zero());
  c.edge.fill(Mat3::Zero());
  return c;
}

void add_contribution(const ElementContribution& part, unsigned what, ElementContribution& sum) {
  if (what & kEvalEnergy) sum.energy += part.energy;
  if (what & kEvalForces)
    for (size_t k = 0; k < 4; ++k) sum.f[k] += part.f[k];
  if (!(what & kEvalStiffness)) return;
  if (what & kEvalOneVertex) {
    sum.diagonal[static_cast<size_t>(sum.vertex)] += part.diagonal[static_cast<size_t>(sum.vertex)];
    return;
  }
  for (size_t k = 0; k < 4; ++k) sum.diagonal[k] += part.diagonal[k];
  for (size_t k = 0; k < 6; ++k) sum.edge[k] += part.edge[k];
}

void scatter_element(const MeshTopology& topology, Index t, unsigned what,
                     const ElementContribution& local, ForceOutput& out) {
  const Tet& tet = topology.tets()[static_cast<size_t>(t)];
  if (what & kEvalForces) {
    for (size_t k = 0; k < 4; ++k) out.f[static_cast<size_t>(tet[k])] += local.f[k];
  }
  if (what & kEvalStiffness) {
    for (size_t k = 0; k < 4; ++k)
      out.K.vertex_blocks[static_cast<size_t>(tet[k])] += local.diagonal[k];
    for (int k = 0; k < 6; ++k) {
      Mat3& block = out.K.edge_blocks[static_cast<size_t>(topology.tet_edge(t, k))];
      if (topology.tet_edge_flipped(t, k)) {
        block += local.edge[static_cast<size_t>(k)].transpose();
      } else {
        block += local.edge[static_cast<size_t>(k)];
      }
    }
  }
}

TetColoring color_tets(const MeshTopology& topology, const std::vector<Index>* subset) {
  // Greedy colouring in index order: each tetrahedron takes the smallest colour none of its
  // vertices has seen yet.
  constexpr size_t kMaxColors = 512;
  std::vector<std::bitset<kMaxColors>> used(static_cast<size_t>(topology.num_vertices()));
  std::vector<Index> all;
  if (subset == nullptr) {
    all.resize(static_cast<size_t>(topology.num_tets()));
    for (Index t = 0; t < topology.num_tets(); ++t) all[static_cast<size_t>(t)] = t;
    subset = &all;
  }
  std::vector<Index> color(subset->size());
  Index num_colors = 0;
  for (size_t i = 0; i < subset->size(); ++i) {
    const Index t = (*subset)[i];
    const Tet& tet = topology.tets()[static_cast<size_t>(t)];
    std::bitset<kMaxColors> taken;
    for (Index v : tet) taken |= used[static_cast<size_t>(v)];
    size_t c = 0;
    while (c < kMaxColors && taken[c]) ++c;
    if (c == kMaxColors)
      throw std::runtime_error("tetrahedron colouring: a vertex belongs to too many tetrahedra");
    color[i] = static_cast<Index>(c);
    for (Index v : tet) used[static_cast<size_t>(v)].set(c);
    num_colors = std::max(num_colors, static_cast<Index>(c) + 1);
  }
  TetColoring coloring;
  coloring.color_offsets.assign(static_cast<size_t>(num_colors) + 1, 0);
  for (Index c : color) ++coloring.color_offsets[static_cast<size_t>(c) + 1];
  for (size_t c = 0; c < static_cast<size_t>(num_colors); ++c)
    coloring.color_offsets[c + 1] += coloring.color_offsets[c];
  coloring.order.resize(color.size());
  std::vector<Index> fill(coloring.color_offsets.begin(), coloring.color_offsets.end() - 1);
  for (size_t i = 0; i < subset->size(); ++i)
    coloring.order[static_cast<size_t>(fill[static_cast<size_t>(color[i])]++)] = (*subset)[i];
  return coloring;
}

}  // namespace softbody
