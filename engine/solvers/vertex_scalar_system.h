// A constant symmetric positive definite system over the vertices whose 3x3 blocks are scalars
// times I3 (projective dynamics' global matrix M/h^2 + sum_e w_e G_e^T G_e, seed 004's issue):
// factored once as an n x n scalar matrix and solved for the three coordinates as three
// right-hand sides of one pass, instead of a 3n x 3n factor (9-27x less factorization work, 3x
// less back-substitution). A few vertices' diagonal may change from step to step (a tool's grab)
// without refactoring: the change is applied by the Woodbury identity, with A^-1 of its columns
// solved once per change.
#pragma once

#include <Eigen/Cholesky>
#include <Eigen/SparseCore>
#include <utility>
#include <vector>

#include "engine/mesh/topology.h"
#include "engine/solvers/sparse_cholesky.h"

namespace softbody {

class VertexScalarSystem {
 public:
  // The pattern: a diagonal entry per vertex and one per topology edge (mesh edges, and second
  // neighbours where the topology couples them). Fixed vertices are identity rows and columns.
  VertexScalarSystem(const MeshTopology& topology, std::vector<std::uint8_t> fixed);

  // Assigns A's values, a_ii = diagonal[i] and a_uv = edge_values[e] for edge e = (u, v), and
  // factors it (the pattern is analysed on the first call). Throws std::runtime_error when A is
  // not positive definite: the systems this serves are by construction.
  FactorInfo factor(const std::vector<double>& diagonal, const std::vector<double>& edge_values);

  // Adds d_k to the diagonal of vertex v_k for the solves that follow (replacing the last such
  // change; empty: none). Costs one solve with k right-hand sides when the list differs from the
  // last one, nothing when it is the same.
  void set_diagonal_change(std::vector<std::pair<Index, double>> change);

  // x = (A + change)^-1 b, each coordinate a column; fixed vertices' rows give x_i = b_i.
  void solve(const Vec3Array& b, Vec3Array& x) const;
  // y = (A + change) x, for tests.
  Vec3Array multiply(const Vec3Array& x) const;

  Index size() const { return n_; }

 private:
  Index n_;
  std::vector<std::uint8_t> fixed_;
  Eigen::SparseMatrix<double, Eigen::ColMajor, int> upper_;
  std::vector<int> edge_offset_, diagonal_offset_;  // into upper_'s values
  std::vector<char> edge_free_;                     // neither end fixed
  SparseCholesky factor_;
  bool analysed_ = false;
  // The Woodbury form of the diagonal change D on vertices S: (A + E D E^T)^-1 b =
  // A^-1 b - Z C^-1 E^T A^-1 b with Z = A^-1 E and C = D^-1 + E^T Z.
  std::vector<std::pair<Index, double>> change_;
  Eigen::MatrixXd change_columns_;                   // Z
  Eigen::LDLT<Eigen::MatrixXd> change_capacitance_;  // C
};

}  // namespace softbody
