// The matrix a Krylov solver sees: products with A and A^T and the 3x3 diagonal blocks (for the
// Jacobi preconditioners). Vectors are flat, 3 entries per vertex.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "engine/linalg/edge_block_matrix.h"

namespace softbody {

class LinearOperator {
 public:
  virtual ~LinearOperator() = default;
  virtual Eigen::Index size() const = 0;
  virtual void apply(const Eigen::VectorXd& x, Eigen::VectorXd& y) const = 0;
  virtual void apply_transpose(const Eigen::VectorXd& x, Eigen::VectorXd& y) const = 0;
  // Diagonal 3x3 blocks of the operator, one per vertex.
  virtual std::vector<Mat3> diagonal_blocks() const = 0;
};

// An edge-block matrix restricted to free vertices: y = P A P x + (I - P) x, where P zeroes the
// fixed vertices. Fixed unknowns thus equal the right-hand side there (their prescribed value) and
// never couple into free ones ("filtered" solve, Baraff & Witkin 1998), for any solver.
class ConstrainedBlockOperator final : public LinearOperator {
 public:
  // `fixed`: one flag per vertex, or empty when nothing is fixed. Copied (a byte per vertex), so
  // temporaries are safe; topology and matrix must outlive the operator.
  ConstrainedBlockOperator(const MeshTopology& topology, const EdgeBlockMatrix& matrix,
                           std::vector<std::uint8_t> fixed)
      : topology_(topology), matrix_(matrix), fixed_(std::move(fixed)) {}

  Eigen::Index size() const override {
    return 3 * static_cast<Eigen::Index>(topology_.num_vertices());
  }
  void apply(const Eigen::VectorXd& x, Eigen::VectorXd& y) const override;
  void apply_transpose(const Eigen::VectorXd& x, Eigen::VectorXd& y) const override;
  std::vector<Mat3> diagonal_blocks() const override;

  const MeshTopology& topology() const { return topology_; }
  const EdgeBlockMatrix& matrix() const { return matrix_; }
  bool is_fixed(Index v) const { return !fixed_.empty() && fixed_[static_cast<size_t>(v)] != 0; }
  const std::vector<std::uint8_t>& fixed() const { return fixed_; }

 private:
  void apply_impl(const Eigen::VectorXd& x, Eigen::VectorXd& y, bool transpose) const;

  const MeshTopology& topology_;
  const EdgeBlockMatrix& matrix_;
  std::vector<std::uint8_t> fixed_;
};

// A constrained operator plus sigma on the free diagonal: A + sigma I (fixed rows stay identity).
// What the solver layer solves in its definite mode when sym(A) is indefinite.
class ShiftedOperator final : public LinearOperator {
 public:
  ShiftedOperator(const ConstrainedBlockOperator& a, double shift) : a_(a), shift_(shift) {}
  Eigen::Index size() const override { return a_.size(); }
  void apply(const Eigen::VectorXd& x, Eigen::VectorXd& y) const override;
  void apply_transpose(const Eigen::VectorXd& x, Eigen::VectorXd& y) const override;
  std::vector<Mat3> diagonal_blocks() const override;

 private:
  void add_shift(const Eigen::VectorXd& x, Eigen::VectorXd& y) const;
  const ConstrainedBlockOperator& a_;
  double shift_;
};

}  // namespace softbody
