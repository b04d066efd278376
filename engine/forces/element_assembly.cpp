#include "engine/forces/element_assembly.h"

#include <bitset>
#include <stdexcept>

namespace softbody {

TetColoring color_tets(const MeshTopology& topology) {
  // Greedy colouring in index order: each tetrahedron takes the smallest colour none of its
  // vertices has seen yet.
  constexpr size_t kMaxColors = 512;
  std::vector<std::bitset<kMaxColors>> used(static_cast<size_t>(topology.num_vertices()));
  std::vector<Index> color(static_cast<size_t>(topology.num_tets()));
  Index num_colors = 0;
  for (Index t = 0; t < topology.num_tets(); ++t) {
    const Tet& tet = topology.tets()[static_cast<size_t>(t)];
    std::bitset<kMaxColors> taken;
    for (Index v : tet) taken |= used[static_cast<size_t>(v)];
    size_t c = 0;
    while (c < kMaxColors && taken[c]) ++c;
    if (c == kMaxColors) throw std::runtime_error("tetrahedron colouring: a vertex belongs to too many tetrahedra");
    color[static_cast<size_t>(t)] = static_cast<Index>(c);
    for (Index v : tet) used[static_cast<size_t>(v)].set(c);
    num_colors = std::max(num_colors, static_cast<Index>(c) + 1);
  }
  TetColoring coloring;
  coloring.color_offsets.assign(static_cast<size_t>(num_colors) + 1, 0);
  for (Index c : color) ++coloring.color_offsets[static_cast<size_t>(c) + 1];
  for (size_t c = 0; c < static_cast<size_t>(num_colors); ++c) coloring.color_offsets[c + 1] += coloring.color_offsets[c];
  coloring.order.resize(color.size());
  std::vector<Index> fill(coloring.color_offsets.begin(), coloring.color_offsets.end() - 1);
  for (Index t = 0; t < topology.num_tets(); ++t) coloring.order[static_cast<size_t>(fill[static_cast<size_t>(color[static_cast<size_t>(t)])]++)] = t;
  return coloring;
}

}  // namespace softbody
