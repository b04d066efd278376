#include "engine/solvers/preconditioner.h"

#include <Eigen/LU>
#include <cmath>

#include "engine/parallel/parallel.h"

namespace softbody {

BlockDiagonalPreconditioner::BlockDiagonalPreconditioner(const LinearOperator& a,
                                                         bool scalar_only) {
  std::vector<Mat3> blocks = a.diagonal_blocks();
  inverse_.resize(blocks.size());
  for (size_t v = 0; v < blocks.size(); ++v) {
    const Mat3& d = blocks[v];
    if (scalar_only) {
      Vec3 diag = d.diagonal();
      for (int k = 0; k < 3; ++k) diag[k] = std::abs(diag[k]) > 0 ? 1.0 / diag[k] : 1.0;
      inverse_[v] = diag.asDiagonal();
    } else {
      Eigen::FullPivLU<Mat3> lu(d);
      inverse_[v] = lu.isInvertible() ? Mat3(lu.inverse()) : Mat3::Identity();
    }
  }
}

void BlockDiagonalPreconditioner::apply(const Eigen::VectorXd& r, Eigen::VectorXd& z) const {
  apply_impl(r, z, false);
}

void BlockDiagonalPreconditioner::apply_transpose(const Eigen::VectorXd& r,
                                                  Eigen::VectorXd& z) const {
  apply_impl(r, z, true);
}

void BlockDiagonalPreconditioner::apply_impl(const Eigen::VectorXd& r, Eigen::VectorXd& z,
                                             bool transpose) const {
  z.resize(r.size());
  parallel_for(static_cast<std::ptrdiff_t>(inverse_.size()), [&](std::ptrdiff_t v) {
    const Mat3& m = inverse_[static_cast<size_t>(v)];
    z.segment<3>(3 * v) =
        transpose ? Vec3(m.transpose() * r.segment<3>(3 * v)) : Vec3(m * r.segment<3>(3 * v));
  });
}

}  // namespace softbody
