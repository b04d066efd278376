#include "engine/solvers/incomplete_cholesky.h"

#include <stdexcept>

namespace softbody {

IncompleteCholeskyPreconditioner::IncompleteCholeskyPreconditioner(
    const ConstrainedBlockOperator& a) {
  SymmetricCsc csc(a.topology(), a.fixed());
  csc.assign(a.matrix());
  const Eigen::SparseMatrix<double, Eigen::ColMajor, int> upper = csc.upper();
  factor_.compute(upper);
  if (factor_.info() != Eigen::Success)
    throw std::runtime_error("incomplete Cholesky failed (matrix has a zero or non-finite entry)");
}

void IncompleteCholeskyPreconditioner::apply(const Eigen::VectorXd& r, Eigen::VectorXd& z) const {
  z = factor_.solve(r);
}

}  // namespace softbody
