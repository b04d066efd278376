#include "engine/solvers/linear_operator.h"

#include "engine/parallel/parallel.h"

namespace softbody {

void ConstrainedBlockOperator::apply(const Eigen::VectorXd& x, Eigen::VectorXd& y) const {
  apply_impl(x, y, false);
}

void ConstrainedBlockOperator::apply_transpose(const Eigen::VectorXd& x, Eigen::VectorXd& y) const {
  apply_impl(x, y, true);
}

void ConstrainedBlockOperator::apply_impl(const Eigen::VectorXd& x, Eigen::VectorXd& y,
                                          bool transpose) const {
  y.resize(x.size());
  const auto& edges = topology_.edges();
  const bool any_fixed = !fixed_.empty();
  auto is_fixed = [&](Index v) { return any_fixed && fixed_[static_cast<size_t>(v)] != 0; };
  auto block = [&](Index v) { return x.segment<3>(3 * static_cast<Eigen::Index>(v)); };
  parallel_for(topology_.num_vertices(), [&](std::ptrdiff_t vi) {
    const auto v = static_cast<Index>(vi);
    if (is_fixed(v)) {
      y.segment<3>(3 * vi) = block(v);
      return;
    }
    const Mat3& d = matrix_.vertex_blocks[static_cast<size_t>(v)];
    Vec3 sum = transpose ? Vec3(d.transpose() * block(v)) : Vec3(d * block(v));
    for (const VertexEdge& ve : topology_.vertex_edges(v)) {
      const EdgeVertices& e = edges[static_cast<size_t>(ve.edge)];
      const Index other = ve.sign > 0 ? e[1] : e[0];
      if (is_fixed(other)) continue;
      const Mat3& k = matrix_.edge_blocks[static_cast<size_t>(ve.edge)];
      // Block (v, other) is K(E) + S(E) when v is the edge's first vertex and (K(E) - S(E))^T
      // otherwise; A^T swaps the sign of S (and transposes the vertex blocks, where
      // non-symmetric friction Jacobians go).
      sum += ve.sign > 0 ? Vec3(k * block(other)) : Vec3(k.transpose() * block(other));
      if (matrix_.edge_skew.empty()) continue;
      const Mat3& s = matrix_.edge_skew[static_cast<size_t>(ve.edge)];
      const Vec3 skew = ve.sign > 0 ? Vec3(s * block(other)) : Vec3(s.transpose() * block(other));
      if ((ve.sign > 0) != transpose) {
        sum += skew;
      } else {
        sum -= skew;
      }
    }
    y.segment<3>(3 * vi) = sum;
  });
}

std::vector<Mat3> ConstrainedBlockOperator::diagonal_blocks() const {
  std::vector<Mat3> d = matrix_.vertex_blocks;
  for (size_t v = 0; v < fixed_.size(); ++v) {
    if (fixed_[v]) d[v].setIdentity();
  }
  return d;
}

void ShiftedOperator::apply(const Eigen::VectorXd& x, Eigen::VectorXd& y) const {
  a_.apply(x, y);
  add_shift(x, y);
}

void ShiftedOperator::apply_transpose(const Eigen::VectorXd& x, Eigen::VectorXd& y) const {
  a_.apply_transpose(x, y);
  add_shift(x, y);
}

void ShiftedOperator::add_shift(const Eigen::VectorXd& x, Eigen::VectorXd& y) const {
  parallel_for(a_.topology().num_vertices(), [&](std::ptrdiff_t v) {
    if (!a_.is_fixed(static_cast<Index>(v))) y.segment<3>(3 * v) += shift_ * x.segment<3>(3 * v);
  });
}

std::vector<Mat3> ShiftedOperator::diagonal_blocks() const {
  std::vector<Mat3> d = a_.diagonal_blocks();
  for (size_t v = 0; v < d.size(); ++v)
    if (!a_.is_fixed(static_cast<Index>(v))) d[v].diagonal().array() += shift_;
  return d;
}

}  // namespace softbody
