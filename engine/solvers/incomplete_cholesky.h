// Incomplete Cholesky of the symmetric part of the constrained matrix, as a preconditioner
// (Eigen's IncompleteCholesky: Lin-More with AMD ordering, diagonal scaling and a growing
// diagonal shift until the factorization succeeds, so it exists for indefinite matrices too).
#pragma once

#include <Eigen/IterativeLinearSolvers>
#include <memory>

#include "engine/solvers/preconditioner.h"
#include "engine/solvers/symmetric_csc.h"

namespace softbody {

class IncompleteCholeskyPreconditioner final : public LinearPreconditioner {
 public:
  explicit IncompleteCholeskyPreconditioner(const ConstrainedBlockOperator& a);
  void apply(const Eigen::VectorXd& r, Eigen::VectorXd& z) const override;

 private:
  Eigen::IncompleteCholesky<double, Eigen::Upper, Eigen::AMDOrdering<int>> factor_;
};

}  // namespace softbody
