// Assembly of per-tetrahedron contributions (element-based models: total-Lagrangian StVK,
// corotational) into vertex forces and the edge-block stiffness. Tetrahedra are processed in
// colour classes in which no two share a vertex, so scattering needs no atomics and the summation
// order, hence the result, is the same for any thread count.
#pragma once

#include "engine/forces/force_model.h"
#include "engine/parallel/parallel.h"

namespace softbody {

struct TetColoring {
  std::vector<Index> order;          // tetrahedra grouped by colour
  std::vector<Index> color_offsets;  // colour c holds order[color_offsets[c] .. color_offsets[c+1])
  Index num_colors() const { return static_cast<Index>(color_offsets.size()) - 1; }
};

// Colours all tetrahedra, or only those listed in `subset`.
TetColoring color_tets(const MeshTopology& topology, const std::vector<Index>* subset = nullptr);

// Contribution of one tetrahedron, in local vertex numbering.
struct ElementContribution {
  double energy = 0;
  std::array<Vec3, 4> f;
  std::array<Mat3, 4> diagonal;  // d f_i / d p_i
  std::array<Mat3, 6> edge;      // d f_i / d p_j for local edge k = (i, j) of kTetEdgeLocal
  // With kEvalOneVertex: the local vertex whose diagonal block is wanted.
  int vertex = -1;
  // All zero: a sum to add parts to (ForceModel::add_element).
  static ElementContribution zero(int vertex = -1);
  // The stiffness blocks `what` asks for: all ten, or with kEvalOneVertex one diagonal block.
  template <typename Block>
  void set_stiffness(unsigned what, Block&& block) {
    if (what & kEvalOneVertex) {
      const auto i = static_cast<size_t>(vertex);
      diagonal[i] = block(i, i);
      return;
    }
    for (size_t i = 0; i < 4; ++i) diagonal[i] = block(i, i);
    for (size_t k = 0; k < 6; ++k)
      edge[k] =
          block(static_cast<size_t>(kTetEdgeLocal[k][0]), static_cast<size_t>(kTetEdgeLocal[k][1]));
  }
};

// sum += part, for the outputs `what` asks for (energy with kEvalEnergy).
void add_contribution(const ElementContribution& part, unsigned what, ElementContribution& sum);

struct ElementWorkspace : ForceWorkspace {
  std::vector<double> tet_energy;
};

// Adds one element's contribution to the global outputs (not thread-safe across elements sharing
// vertices; assemble_elements calls it per colour class).
void scatter_element(const MeshTopology& topology, Index t, unsigned what,
                     const ElementContribution& local, ForceOutput& out);

// kernel(t, what, contribution) computes tetrahedron t's contribution.
template <typename Kernel>
void assemble_elements(const MeshTopology& topology, const TetColoring& coloring, unsigned what,
                       ElementWorkspace& ws, ForceOutput& out, Kernel&& kernel) {
  ws.tet_energy.resize(static_cast<size_t>(topology.num_tets()));
  for_each_by_color(coloring.color_offsets, [&](std::ptrdiff_t k) {
    const Index t = coloring.order[static_cast<size_t>(k)];
    ElementContribution local;
    kernel(t, what, local);
    ws.tet_energy[static_cast<size_t>(t)] = local.energy;
    scatter_element(topology, t, what, local, out);
  });
  if (what & kEvalEnergy) {
    out.energy += deterministic_sum(topology.num_tets(), [&](std::ptrdiff_t t) {
      return ws.tet_energy[static_cast<size_t>(t)];
    });
  }
}

}  // namespace softbody
