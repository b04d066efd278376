// Preconditioners as objects the Krylov methods call: z = M^-1 r (and M^-T r for QMR). Built
// once per matrix (or kept across matrices, like the StepSolver's reused factor).
#pragma once

#include <Eigen/Core>
#include <memory>
#include <vector>

#include "engine/solvers/linear_operator.h"
#include "engine/solvers/solver_options.h"

namespace softbody {

class LinearPreconditioner {
 public:
  virtual ~LinearPreconditioner() = default;
  virtual void apply(const Eigen::VectorXd& r, Eigen::VectorXd& z) const = 0;
  // M^-T r; symmetric preconditioners need not override it.
  virtual void apply_transpose(const Eigen::VectorXd& r, Eigen::VectorXd& z) const { apply(r, z); }
  // True when M is symmetric positive definite, so CG may use it.
  virtual bool symmetric_positive_definite() const { return true; }
};

class IdentityPreconditioner final : public LinearPreconditioner {
 public:
  void apply(const Eigen::VectorXd& r, Eigen::VectorXd& z) const override { z = r; }
};

// Jacobi (the scalar diagonal) or block-Jacobi (the 3x3 vertex blocks, inverted). A singular
// block is replaced by the identity.
class BlockDiagonalPreconditioner final : public LinearPreconditioner {
 public:
  BlockDiagonalPreconditioner(const LinearOperator& a, bool scalar_only);
  void apply(const Eigen::VectorXd& r, Eigen::VectorXd& z) const override;
  void apply_transpose(const Eigen::VectorXd& r, Eigen::VectorXd& z) const override;

 private:
  void apply_impl(const Eigen::VectorXd& r, Eigen::VectorXd& z, bool transpose) const;
  std::vector<Mat3> inverse_;
};

}  // namespace softbody
