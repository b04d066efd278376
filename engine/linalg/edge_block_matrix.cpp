#include "engine/linalg/edge_block_matrix.h"

#include <cmath>

#include "engine/parallel/parallel.h"

namespace softbody {

void EdgeBlockMatrix::resize(Index num_vertices, Index num_edges) {
  vertex_blocks.resize(static_cast<size_t>(num_vertices));
  edge_blocks.resize(static_cast<size_t>(num_edges));
}

void EdgeBlockMatrix::set_zero() {
  for (Mat3& m : vertex_blocks) m.setZero();
  for (Mat3& m : edge_blocks) m.setZero();
  edge_skew.clear();
}

void EdgeBlockMatrix::multiply(const MeshTopology& topology, const Vec3Array& x,
                               Vec3Array& y) const {
  y.resize(x.size());
  const auto& edges = topology.edges();
  parallel_for(topology.num_vertices(), [&](std::ptrdiff_t v) {
    Vec3 sum = vertex_blocks[static_cast<size_t>(v)] * x[static_cast<size_t>(v)];
    for (const VertexEdge& ve : topology.vertex_edges(static_cast<Index>(v))) {
      const EdgeVertices& e = edges[static_cast<size_t>(ve.edge)];
      const Mat3& k = edge_blocks[static_cast<size_t>(ve.edge)];
      if (ve.sign > 0) {
        sum += k * x[static_cast<size_t>(e[1])];
      } else {
        sum += k.transpose() * x[static_cast<size_t>(e[0])];
      }
      if (edge_skew.empty()) continue;
      // The skew part: + S(E) x from the edge's first vertex, - S(E)^T x from its second.
      const Mat3& s = edge_skew[static_cast<size_t>(ve.edge)];
      if (ve.sign > 0) {
        sum += s * x[static_cast<size_t>(e[1])];
      } else {
        sum -= s.transpose() * x[static_cast<size_t>(e[0])];
      }
    }
    y[static_cast<size_t>(v)] = sum;
  });
}

Eigen::MatrixXd EdgeBlockMatrix::to_dense(const MeshTopology& topology) const {
  const Eigen::Index n = topology.num_vertices();
  Eigen::MatrixXd k = Eigen::MatrixXd::Zero(3 * n, 3 * n);
  for (Eigen::Index v = 0; v < n; ++v)
    k.block<3, 3>(3 * v, 3 * v) = vertex_blocks[static_cast<size_t>(v)];
  for (size_t e = 0; e < edge_blocks.size(); ++e) {
    const EdgeVertices& ev = topology.edges()[e];
    const Mat3 s = edge_skew.empty() ? Mat3::Zero() : edge_skew[e];
    k.block<3, 3>(3 * ev[0], 3 * ev[1]) = edge_blocks[e] + s;
    k.block<3, 3>(3 * ev[1], 3 * ev[0]) = (edge_blocks[e] - s).transpose();
  }
  return k;
}

double EdgeBlockMatrix::frobenius_norm() const {
  double sum = 0;
  for (const Mat3& m : vertex_blocks) sum += m.squaredNorm();
  for (const Mat3& m : edge_blocks) sum += 2 * m.squaredNorm();
  return std::sqrt(sum);
}

double relative_difference(const EdgeBlockMatrix& a, const EdgeBlockMatrix& b) {
  double diff = 0;
  for (size_t v = 0; v < a.vertex_blocks.size(); ++v)
    diff += (a.vertex_blocks[v] - b.vertex_blocks[v]).squaredNorm();
  for (size_t e = 0; e < a.edge_blocks.size(); ++e)
    diff += 2 * (a.edge_blocks[e] - b.edge_blocks[e]).squaredNorm();
  return std::sqrt(diff) / b.frobenius_norm();
}

double relative_difference(const Vec3Array& a, const Vec3Array& b) {
  double diff = 0, norm = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    diff += (a[i] - b[i]).squaredNorm();
    norm += b[i].squaredNorm();
  }
  return std::sqrt(diff / norm);
}

}  // namespace softbody
