#include "engine/solvers/block_ssor.h"

#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <cmath>

#include "engine/parallel/parallel.h"
#include "engine/solvers/stopping.h"

namespace softbody {
namespace {

// Symmetric and positive definite, within round-off.
bool spd_block(const Mat3& d) {
  if ((d - d.transpose()).cwiseAbs().maxCoeff() > 1e-12 * d.cwiseAbs().maxCoeff()) return false;
  return Eigen::SelfAdjointEigenSolver<Mat3>(d, Eigen::EigenvaluesOnly).eigenvalues().minCoeff() >
         0;
}

}  // namespace

BlockSsor::BlockSsor(const ConstrainedBlockOperator& a) : a_(a) {
  std::vector<Mat3> d = a.diagonal_blocks();
  sweep_diagonal_.resize(d.size());
  sweep_inverse_.resize(d.size());
  correction_.resize(d.size());
  for (size_t v = 0; v < d.size(); ++v) {
    Eigen::FullPivLU<Mat3> lu(d[v]);
    sweep_diagonal_[v] = lu.isInvertible() ? d[v] : Mat3::Identity();
    sweep_inverse_[v] = lu.isInvertible() ? Mat3(lu.inverse()) : Mat3::Identity();
    correction_[v] = 2 * sweep_diagonal_[v] - d[v];
    spd_ = spd_ && spd_block(d[v]);
  }
}

void BlockSsor::sweep(const Eigen::VectorXd& r, Eigen::VectorXd& y, bool transpose,
                      bool lower) const {
  const MeshTopology& topo = a_.topology();
  const auto& edges = topo.edges();
  const auto& blocks = a_.matrix().edge_blocks;
  const Index n = topo.num_vertices();
  y.resize(r.size());
  for (Index k = 0; k < n; ++k) {
    // Forward through the vertices for L (partners come first), backward for U.
    const Index v = lower ? k : n - 1 - k;
    const auto i = 3 * static_cast<Eigen::Index>(v);
    if (a_.is_fixed(v)) {
      y.segment<3>(i) = r.segment<3>(i);
      continue;
    }
    Vec3 rhs = r.segment<3>(i);
    for (const VertexEdge& ve : topo.vertex_edges(v)) {
      // sign < 0: v is the edge's higher vertex, its partner e[0] lies below (block K(E)^T).
      if ((ve.sign < 0) != lower) continue;
      const EdgeVertices& e = edges[static_cast<size_t>(ve.edge)];
      const Index partner = lower ? e[0] : e[1];
      if (a_.is_fixed(partner)) continue;
      const Mat3& block = blocks[static_cast<size_t>(ve.edge)];
      rhs -= lower ? Vec3(block.transpose() * y.segment<3>(3 * partner))
                   : Vec3(block * y.segment<3>(3 * partner));
    }
    const Mat3& inv = sweep_inverse_[static_cast<size_t>(v)];
    y.segment<3>(i) = transpose ? Vec3(inv.transpose() * rhs) : Vec3(inv * rhs);
  }
}

void BlockSsor::multiply_diagonal(const std::vector<Mat3>& blocks, const Eigen::VectorXd& x,
                                  Eigen::VectorXd& y) const {
  y.resize(x.size());
  parallel_for(static_cast<std::ptrdiff_t>(blocks.size()), [&](std::ptrdiff_t v) {
    y.segment<3>(3 * v) = blocks[static_cast<size_t>(v)] * x.segment<3>(3 * v);
  });
}

void BlockSsor::multiply_lower(const Eigen::VectorXd& x, Eigen::VectorXd& y) const {
  const MeshTopology& topo = a_.topology();
  const auto& edges = topo.edges();
  const auto& blocks = a_.matrix().edge_blocks;
  y.resize(x.size());
  parallel_for(topo.num_vertices(), [&](std::ptrdiff_t vi) {
    const auto v = static_cast<Index>(vi);
    Vec3 sum = Vec3::Zero();
    if (!a_.is_fixed(v)) {
      for (const VertexEdge& ve : topo.vertex_edges(v)) {
        if (ve.sign > 0) continue;
        const Index u = edges[static_cast<size_t>(ve.edge)][0];
        if (a_.is_fixed(u)) continue;
        sum += blocks[static_cast<size_t>(ve.edge)].transpose() * x.segment<3>(3 * u);
      }
    }
    y.segment<3>(3 * vi) = sum;
  });
}

void BlockSsor::apply(const Eigen::VectorXd& r, Eigen::VectorXd& z) const {
  Eigen::VectorXd y, dy;
  sweep(r, y, false, true);
  multiply_diagonal(sweep_diagonal_, y, dy);
  sweep(dy, z, false, false);
}

void BlockSsor::apply_transpose(const Eigen::VectorXd& r, Eigen::VectorXd& z) const {
  // M^T = (D^T + L)(D^T)^-1(D^T + U), because the off-diagonal part is symmetric (U = L^T).
  Eigen::VectorXd y, dy;
  sweep(r, y, true, true);
  dy.resize(y.size());
  parallel_for(static_cast<std::ptrdiff_t>(sweep_diagonal_.size()), [&](std::ptrdiff_t v) {
    dy.segment<3>(3 * v) =
        sweep_diagonal_[static_cast<size_t>(v)].transpose() * y.segment<3>(3 * v);
  });
  sweep(dy, z, true, false);
}

SolveReport BlockSsor::eisenstat_cg(const Eigen::VectorXd& b, Eigen::VectorXd& x,
                                    const SolverOptions& o) const {
  const StopWatch watch(o);
  SolveReport report;
  if (x.size() != b.size()) x = Eigen::VectorXd::Zero(b.size());
  const double b_norm = b.norm();
  if (b_norm == 0) {
    x.setZero();
    report.reason = StopReason::kConverged;
    return report;
  }
  // Transformed system: A^ = P^-1 A Q^-1, x^ = Q x, r^ = P^-1 (b - A x), P = D~ + L, Q = D~ + U,
  // inner preconditioner z = D~ r^. A = P + Q - (2 D~ - D) gives
  // A^ p = t + P^-1 (p - (2 D~ - D) t) with t = Q^-1 p, and x = Q^-1 x^ moves by alpha t.
  Eigen::VectorXd r(b.size()), r_hat, z, p, t, s, kt, ap, lower;
  a_.apply(x, r);
  ++report.matvecs;
  r = b - r;
  report.relative_residual = r.norm() / b_norm;
  sweep(r, r_hat, false, true);
  multiply_diagonal(sweep_diagonal_, r_hat, z);
  p = z;
  double rz = r_hat.dot(z);
  while (true) {
    if (should_stop(report, o, watch)) return report;
    sweep(p, t, false, false);
    multiply_diagonal(correction_, t, kt);
    sweep(p - kt, s, false, true);
    ap = t + s;
    ++report.matvecs;
    const double pap = p.dot(ap);
    if (!std::isfinite(pap)) return report.reason = StopReason::kNonFinite, report;
    if (pap == 0 || rz == 0) return report.reason = StopReason::kBreakdown, report;
    const double alpha = rz / pap;
    x += alpha * t;
    r_hat -= alpha * ap;
    ++report.iterations;
    multiply_diagonal(sweep_diagonal_, r_hat, z);
    multiply_lower(r_hat, lower);
    report.relative_residual = (z + lower).norm() / b_norm;  // r = P r^
    if (!std::isfinite(report.relative_residual))
      return report.reason = StopReason::kNonFinite, report;
    const double rz_next = r_hat.dot(z);
    p = z + (rz_next / rz) * p;
    rz = rz_next;
  }
}

}  // namespace softbody
