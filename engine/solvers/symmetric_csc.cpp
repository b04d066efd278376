#include "engine/solvers/symmetric_csc.h"

#include <algorithm>
#include <stdexcept>

#include "engine/parallel/parallel.h"

namespace softbody {

SymmetricCsc::SymmetricCsc(const MeshTopology& topology, std::vector<std::uint8_t> fixed)
    : topology_(topology), fixed_(std::move(fixed)) {
  const Index n = topology.num_vertices();
  const auto& edges = topology.edges();
  edge_offset_.resize(edges.size());
  col_start_.assign(3 * static_cast<size_t>(n) + 1, 0);
  // Column block of vertex v: rows of every lower neighbour u (edge (u, v)) in increasing order,
  // then v's own rows up to the diagonal.
  std::vector<std::pair<Index, Index>> lower;  // (u, edge)
  for (Index v = 0; v < n; ++v) {
    lower_neighbours(topology, v, lower);
    for (int c = 0; c < 3; ++c) {
      const size_t col = 3 * static_cast<size_t>(v) + static_cast<size_t>(c);
      col_start_[col] = static_cast<int>(row_.size());
      for (const auto& [u, e] : lower) {
        edge_offset_[static_cast<size_t>(e)][static_cast<size_t>(c)] =
            static_cast<int>(row_.size());
        for (int r = 0; r < 3; ++r) row_.push_back(static_cast<int>(3 * u + r));
      }
      for (int r = 0; r <= c; ++r) row_.push_back(static_cast<int>(3 * v + r));
    }
  }
  col_start_.back() = static_cast<int>(row_.size());
  value_.assign(row_.size(), 0.0);
}

void SymmetricCsc::assign(const EdgeBlockMatrix& a) {
  const auto& edges = topology_.edges();
  auto is_fixed = [&](Index v) { return !fixed_.empty() && fixed_[static_cast<size_t>(v)] != 0; };
  // One vertex writes its three columns: no two iterations touch the same value.
  parallel_for(topology_.num_vertices(), [&](std::ptrdiff_t vi) {
    const auto v = static_cast<Index>(vi);
    const bool v_fixed = is_fixed(v);
    for (const VertexEdge& ve : topology_.vertex_edges(v)) {
      if (ve.sign > 0) continue;
      const auto e = static_cast<size_t>(ve.edge);
      const bool zero = v_fixed || is_fixed(edges[e][0]);
      // Block (u, v) = K(E) for the edge (u, v).
      for (int c = 0; c < 3; ++c)
        for (int r = 0; r < 3; ++r)
          value_[static_cast<size_t>(edge_offset_[e][static_cast<size_t>(c)] + r)] =
              zero ? 0.0 : a.edge_blocks[e](r, c);
    }
    const Mat3 d = v_fixed ? Mat3::Identity()
                           : Mat3(0.5 * (a.vertex_blocks[static_cast<size_t>(vi)] +
                                         a.vertex_blocks[static_cast<size_t>(vi)].transpose()));
    for (int c = 0; c < 3; ++c) {
      // The diagonal entries close the column: rows 3v .. 3v + c.
      const int end = col_start_[3 * static_cast<size_t>(vi) + static_cast<size_t>(c) + 1];
      for (int r = 0; r <= c; ++r) value_[static_cast<size_t>(end - 1 - c + r)] = d(r, c);
    }
  });
}

Eigen::Map<const Eigen::SparseMatrix<double, Eigen::ColMajor, int>> SymmetricCsc::upper() const {
  return {size(), size(), nonzeros(), col_start_.data(), row_.data(), value_.data()};
}

void lower_neighbours(const MeshTopology& topology, Index v,
                      std::vector<std::pair<Index, Index>>& out) {
  const auto& edges = topology.edges();
  out.clear();
  for (const VertexEdge& ve : topology.vertex_edges(v))
    if (ve.sign < 0) out.emplace_back(edges[static_cast<size_t>(ve.edge)][0], ve.edge);
  std::sort(out.begin(), out.end());
}

UpperCscView upper_csc_view(const Eigen::SparseMatrix<double, Eigen::ColMajor, int>& upper) {
  if (!upper.isCompressed()) throw std::logic_error("upper_csc_view: the matrix is not compressed");
  return {upper.rows(), static_cast<long>(upper.nonZeros()), upper.outerIndexPtr(),
          upper.innerIndexPtr(), upper.valuePtr()};
}

}  // namespace softbody
