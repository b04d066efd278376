// The symmetric part of the constrained edge-block matrix as a compressed-sparse-column upper
// triangle (the input CHOLMOD and Eigen's incomplete Cholesky take). The pattern depends only on
// the mesh topology and the fixed vertices, so it is built once and every new matrix only
// rewrites the values, in place, through precomputed offsets: the symbolic analysis of a
// factorization stays valid for the whole life of a simulation. Fixed vertices are identity rows
// and columns (their couplings are stored as explicit zeros, keeping the pattern).
#pragma once

#include <Eigen/SparseCore>
#include <vector>

#include "engine/linalg/edge_block_matrix.h"

namespace softbody {

// An upper triangle in compressed sparse columns, rows sorted and the diagonal last in each
// column: what SparseCholesky factors. A view over arrays its owner keeps alive.
struct UpperCscView {
  Eigen::Index size = 0;
  long nonzeros = 0;
  const int* column_starts = nullptr;
  const int* rows = nullptr;
  const double* values = nullptr;
};

// The neighbours u < v of vertex v with the edges (u, v) joining them, in increasing u: the rows
// above the diagonal in v's column of an upper triangle over the vertices.
void lower_neighbours(const MeshTopology& topology, Index v,
                      std::vector<std::pair<Index, Index>>& out);

// The view of an Eigen upper triangle (compressed, column-major, int indices).
UpperCscView upper_csc_view(const Eigen::SparseMatrix<double, Eigen::ColMajor, int>& upper);

class SymmetricCsc {
 public:
  SymmetricCsc(const MeshTopology& topology, std::vector<std::uint8_t> fixed);

  // Writes sym(A) = (A + A^T) / 2 of the constrained matrix into values(). The off-diagonal part
  // of A is symmetric already; only non-symmetric vertex blocks (friction) are averaged.
  void assign(const EdgeBlockMatrix& a);

  Eigen::Index size() const { return static_cast<Eigen::Index>(col_start_.size()) - 1; }
  long nonzeros() const { return static_cast<long>(row_.size()); }
  const std::vector<int>& column_starts() const { return col_start_; }
  const std::vector<int>& rows() const { return row_; }
  const std::vector<double>& values() const { return value_; }
  std::vector<double>& values() { return value_; }
  // An Eigen view of the upper triangle (valid while this object lives and is not reassigned).
  Eigen::Map<const Eigen::SparseMatrix<double, Eigen::ColMajor, int>> upper() const;
  UpperCscView view() const {
    return {size(), nonzeros(), col_start_.data(), row_.data(), value_.data()};
  }
  const MeshTopology& topology() const { return topology_; }
  const std::vector<std::uint8_t>& fixed() const { return fixed_; }

 private:
  const MeshTopology& topology_;
  std::vector<std::uint8_t> fixed_;
  std::vector<int> col_start_, row_;
  std::vector<double> value_;
  // Per edge (u, v), u < v: for each of v's three columns, the offset of row 3u.
  std::vector<std::array<int, 3>> edge_offset_;
};

}  // namespace softbody
