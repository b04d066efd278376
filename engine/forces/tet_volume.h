// The signed volume of a tetrahedron and its derivatives, shared by the volume terms
// (volumetric.h's per-element penalty, nodal_volume.h's average nodal pressure), and the CSR
// gather lists through which they sum per-tetrahedron quantities at vertices and edges without
// write conflicts.
#pragma once

#include <array>
#include <vector>

#include "engine/mesh/topology.h"
#include "engine/types.h"

namespace softbody {

// For local edge k = (i, j), the other two local vertices (w, x) ordered so that (i, j, w, x) is an
// even permutation of (0, 1, 2, 3); then d^2 C / dp_i dp_j = [p_w - p_x]x.
inline constexpr std::array<std::array<int, 2>, 6> kEvenCompletion = {
    {{2, 3}, {3, 1}, {1, 2}, {0, 3}, {2, 0}, {0, 1}}};

// C = 6 x the signed volume of `tet` at p, and dC/dp_i for its four corners.
inline double six_volume_and_gradient(const Vec3Array& p, const Tet& tet,
                                      std::array<Vec3, 4>& grad) {
  const Vec3& p0 = p[static_cast<size_t>(tet[0])];
  const Vec3 d1 = p[static_cast<size_t>(tet[1])] - p0, d2 = p[static_cast<size_t>(tet[2])] - p0,
             d3 = p[static_cast<size_t>(tet[3])] - p0;
  grad[1] = d2.cross(d3);
  grad[2] = d3.cross(d1);
  grad[3] = d1.cross(d2);
  grad[0] = -(grad[1] + grad[2] + grad[3]);
  return d1.dot(grad[1]);
}

// d^2 C / dp_i dp_j for local edge k = (i, j) of `tet` (kTetEdgeLocal's orientation).
inline Mat3 six_volume_hessian_block(const Vec3Array& p, const Tet& tet, int k) {
  const auto w = static_cast<size_t>(kEvenCompletion[static_cast<size_t>(k)][0]);
  const auto x = static_cast<size_t>(kEvenCompletion[static_cast<size_t>(k)][1]);
  return cross_matrix(p[static_cast<size_t>(tet[w])] - p[static_cast<size_t>(tet[x])]);
}

// CSR lists from (key, value) pairs produced by `emit(add)`, called twice (count, then fill).
template <typename Emit>
void build_csr(size_t num_keys, Emit&& emit, std::vector<Index>& offsets,
               std::vector<Index>& values) {
  offsets.assign(num_keys + 1, 0);
  emit([&](Index key, Index) { ++offsets[static_cast<size_t>(key) + 1]; });
  for (size_t k = 0; k < num_keys; ++k) offsets[k + 1] += offsets[k];
  values.resize(static_cast<size_t>(offsets[num_keys]));
  std::vector<Index> fill(offsets.begin(), offsets.end() - 1);
  emit([&](Index key, Index value) {
    values[static_cast<size_t>(fill[static_cast<size_t>(key)]++)] = value;
  });
}

// The corners of the tetrahedra at each vertex (entries 4 t + local vertex).
inline void build_vertex_corners(const MeshTopology& topology, std::vector<Index>& offsets,
                                 std::vector<Index>& corners) {
  const auto& tets = topology.tets();
  build_csr(
      static_cast<size_t>(topology.num_vertices()),
      [&](auto add) {
        for (size_t t = 0; t < tets.size(); ++t)
          for (size_t i = 0; i < 4; ++i) add(tets[t][i], static_cast<Index>(4 * t + i));
      },
      offsets, corners);
}

// The tetrahedron edges at each matrix edge (entries 6 t + local edge; none at coupled pairs
// that are not mesh edges).
inline void build_edge_slots(const MeshTopology& topology, std::vector<Index>& offsets,
                             std::vector<Index>& slots) {
  build_csr(
      static_cast<size_t>(topology.num_edges()),
      [&](auto add) {
        for (Index t = 0; t < topology.num_tets(); ++t)
          for (int k = 0; k < 6; ++k) add(topology.tet_edge(t, k), 6 * t + k);
      },
      offsets, slots);
}

}  // namespace softbody
