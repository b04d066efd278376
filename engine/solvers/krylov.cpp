#include "engine/solvers/krylov.h"

#include <cmath>
#include <stdexcept>

#include "engine/solvers/block_ssor.h"
#include "engine/solvers/incomplete_cholesky.h"
#include "engine/solvers/stopping.h"

namespace softbody {
namespace {

using Vector = Eigen::VectorXd;
bool finite(double x) {
  return std::isfinite(x);
}

SolveReport bicgstab(const LinearOperator& a, const LinearPreconditioner& m, const Vector& b,
                     Vector& x, const SolverOptions& o) {
  SolveReport report;
  StopWatch watch(o);
  const double b_norm = b.norm();
  Vector r(b.size()), v = Vector::Zero(b.size()), p = Vector::Zero(b.size()), p_hat, s, s_hat, t;
  a.apply(x, t);
  ++report.matvecs;
  r = b - t;
  const Vector r_shadow = r;
  double rho_old = 1, alpha = 1, omega = 1;
  report.relative_residual = r.norm() / b_norm;
  while (true) {
    if (should_stop(report, o, watch)) return report;
    const double rho = r_shadow.dot(r);
    if (rho == 0 || omega == 0) return report.reason = StopReason::kBreakdown, report;
    p = report.iterations == 0 ? r
                               : Vector(r + (rho / rho_old) * (alpha / omega) * (p - omega * v));
    m.apply(p, p_hat);
    a.apply(p_hat, v);
    ++report.matvecs;
    const double rv = r_shadow.dot(v);
    if (!finite(rv)) return report.reason = StopReason::kNonFinite, report;
    if (rv == 0) return report.reason = StopReason::kBreakdown, report;
    alpha = rho / rv;
    s = r - alpha * v;
    ++report.iterations;
    if (s.norm() / b_norm <= o.tolerance) {
      x += alpha * p_hat;
      report.relative_residual = s.norm() / b_norm;
      return report.reason = StopReason::kConverged, report;
    }
    m.apply(s, s_hat);
    a.apply(s_hat, t);
    ++report.matvecs;
    const double tt = t.squaredNorm();
    omega = tt > 0 ? t.dot(s) / tt : 0;
    x += alpha * p_hat + omega * s_hat;
    r = s - omega * t;
    rho_old = rho;
    report.relative_residual = r.norm() / b_norm;
    if (!finite(report.relative_residual)) return report.reason = StopReason::kNonFinite, report;
  }
}

// QMR without look-ahead, from Barrett et al., "Templates for the Solution of Linear Systems"
// (1994), Fig. 2.11, with M1 = the chosen preconditioner and M2 = I.
SolveReport qmr(const LinearOperator& a, const LinearPreconditioner& m1, const Vector& b, Vector& x,
                const SolverOptions& o) {
  SolveReport report;
  StopWatch watch(o);
  const double b_norm = b.norm();
  const Eigen::Index n = b.size();
  Vector r(n), v_tilde, w_tilde, y, z, v, w, y_tilde, z_tilde, p(n), q(n), p_tilde(n), d(n), s(n),
      tmp(n);
  a.apply(x, tmp);
  ++report.matvecs;
  r = b - tmp;
  report.relative_residual = r.norm() / b_norm;
  if (report.relative_residual <= o.tolerance)
    return report.reason = StopReason::kConverged, report;
  v_tilde = r;
  m1.apply(v_tilde, y);
  double rho = y.norm();
  w_tilde = r;
  z = w_tilde;  // M2^T = I
  double xi = z.norm();
  double gamma_old = 1, eta = -1, epsilon = 1, theta_old = 0;
  while (true) {
    if (report.iterations >= o.max_iterations)
      return report.reason = StopReason::kMaxIterations, report;
    if (watch.out_of_time()) return report.reason = StopReason::kTimeBudget, report;
    if (rho == 0 || xi == 0) return report.reason = StopReason::kBreakdown, report;
    v = v_tilde / rho;
    y /= rho;
    w = w_tilde / xi;
    z /= xi;
    const double delta = z.dot(y);
    if (delta == 0) return report.reason = StopReason::kBreakdown, report;
    y_tilde = y;                     // M2 y~ = y with M2 = I
    m1.apply_transpose(z, z_tilde);  // M1^T z~ = z
    if (report.iterations == 0) {
      p = y_tilde;
      q = z_tilde;
    } else {
      p = y_tilde - (xi * delta / epsilon) * p;
      q = z_tilde - (rho * delta / epsilon) * q;
    }
    a.apply(p, p_tilde);
    ++report.matvecs;
    epsilon = q.dot(p_tilde);
    if (!finite(epsilon)) return report.reason = StopReason::kNonFinite, report;
    if (epsilon == 0) return report.reason = StopReason::kBreakdown, report;
    const double beta = epsilon / delta;
    if (beta == 0) return report.reason = StopReason::kBreakdown, report;
    v_tilde = p_tilde - beta * v;
    m1.apply(v_tilde, y);
    const double rho_next = y.norm();
    a.apply_transpose(q, tmp);
    ++report.matvecs;
    w_tilde = tmp - beta * w;
    z = w_tilde;
    const double xi_next = z.norm();
    const double theta = rho_next / (gamma_old * std::abs(beta));
    const double gamma = 1 / std::sqrt(1 + theta * theta);
    if (gamma == 0) return report.reason = StopReason::kBreakdown, report;
    eta = -eta * rho * gamma * gamma / (beta * gamma_old * gamma_old);
    if (report.iterations == 0) {
      d = eta * p;
      s = eta * p_tilde;
    } else {
      const double c = theta_old * gamma * theta_old * gamma;
      d = eta * p + c * d;
      s = eta * p_tilde + c * s;
    }
    x += d;
    r -= s;
    ++report.iterations;
    report.relative_residual = r.norm() / b_norm;
    if (!finite(report.relative_residual)) return report.reason = StopReason::kNonFinite, report;
    if (report.relative_residual <= o.tolerance)
      return report.reason = StopReason::kConverged, report;
    rho = rho_next;
    xi = xi_next;
    gamma_old = gamma;
    theta_old = theta;
  }
}

// Restarted GMRES(m) with right preconditioning (Saad, "Iterative Methods for Sparse Linear
// Systems", Alg. 9.5): it minimizes the true residual, so the tolerance test needs no
// preconditioned norm, and it accepts any preconditioner, symmetric or not, definite or not.
// Modified Gram-Schmidt, Givens rotations; the residual is recomputed at every restart. The
// preconditioned vectors z_j = M^-1 v_j are kept (as in flexible GMRES, Saad Alg. 9.6), so the
// update x += Z y needs no further application of M: with a factorization as M that is one
// triangular solve pair saved per cycle, a fifth of a typical solve.
SolveReport gmres(const LinearOperator& a, const LinearPreconditioner& m, const Vector& b,
                  Vector& x, const SolverOptions& o) {
  SolveReport report;
  StopWatch watch(o);
  const double b_norm = b.norm();
  const Eigen::Index n = b.size();
  const int restart =
      static_cast<int>(std::max<Eigen::Index>(1, std::min<Eigen::Index>(o.gmres_restart, n)));
  Eigen::MatrixXd basis(n, restart + 1), preconditioned(n, restart);
  Eigen::MatrixXd h = Eigen::MatrixXd::Zero(restart + 1, restart);
  Vector cs(restart), sn(restart), g(restart + 1), r(n), w(n), z(n);
  while (true) {
    a.apply(x, w);
    ++report.matvecs;
    r = b - w;
    const double beta = r.norm();
    report.relative_residual = beta / b_norm;
    if (!finite(report.relative_residual)) return report.reason = StopReason::kNonFinite, report;
    if (should_stop(report, o, watch)) return report;
    basis.col(0) = r / beta;
    g.setZero();
    g[0] = beta;
    int k = 0;  // columns built in this cycle
    bool breakdown = false;
    while (k < restart) {
      m.apply(basis.col(k), z);
      preconditioned.col(k) = z;
      a.apply(z, w);
      ++report.matvecs;
      for (int i = 0; i <= k; ++i) {
        h(i, k) = w.dot(basis.col(i));
        w -= h(i, k) * basis.col(i);
      }
      h(k + 1, k) = w.norm();
      if (!finite(h(k + 1, k))) return report.reason = StopReason::kNonFinite, report;
      for (int i = 0; i < k; ++i) {
        const double t = cs[i] * h(i, k) + sn[i] * h(i + 1, k);
        h(i + 1, k) = -sn[i] * h(i, k) + cs[i] * h(i + 1, k);
        h(i, k) = t;
      }
      const double denom = std::hypot(h(k, k), h(k + 1, k));
      if (denom == 0) {
        breakdown = true;
        break;
      }
      cs[k] = h(k, k) / denom;
      sn[k] = h(k + 1, k) / denom;
      const double lucky = h(k + 1, k);
      h(k, k) = denom;
      h(k + 1, k) = 0;
      g[k + 1] = -sn[k] * g[k];
      g[k] *= cs[k];
      ++k;
      ++report.iterations;
      const double estimate = std::abs(g[k]) / b_norm;
      if (lucky == 0 || estimate <= o.tolerance || report.iterations >= o.max_iterations ||
          watch.out_of_time())
        break;
      basis.col(k) = w / lucky;
    }
    if (k == 0) return report.reason = StopReason::kBreakdown, report;
    const Vector y = h.topLeftCorner(k, k).triangularView<Eigen::Upper>().solve(g.head(k));
    x += preconditioned.leftCols(k) * y;
    if (breakdown) return report.reason = StopReason::kBreakdown, report;
  }
}

}  // namespace

SolveReport conjugate_gradient(const LinearOperator& a, const LinearPreconditioner& m,
                               const Vector& b, Vector& x, const SolverOptions& o,
                               bool stop_on_negative_curvature) {
  SolveReport report;
  StopWatch watch(o);
  const double b_norm = b.norm();
  Vector r(b.size()), z, p, q;
  a.apply(x, q);
  ++report.matvecs;
  r = b - q;
  m.apply(r, z);
  p = z;
  double rz = r.dot(z);
  report.relative_residual = r.norm() / b_norm;
  while (true) {
    if (should_stop(report, o, watch)) return report;
    a.apply(p, q);
    ++report.matvecs;
    const double pq = p.dot(q);
    if (!finite(pq)) return report.reason = StopReason::kNonFinite, report;
    if (pq == 0 || (stop_on_negative_curvature && (pq < 0 || rz <= 0)))
      return report.reason = StopReason::kBreakdown, report;
    const double alpha = rz / pq;
    x += alpha * p;
    r -= alpha * q;
    ++report.iterations;
    report.relative_residual = r.norm() / b_norm;
    if (!finite(report.relative_residual)) return report.reason = StopReason::kNonFinite, report;
    m.apply(r, z);
    const double rz_next = r.dot(z);
    if (rz == 0) return report.reason = StopReason::kBreakdown, report;
    p = z + (rz_next / rz) * p;
    rz = rz_next;
  }
}

SolveReport krylov_solve(SolverType type, const LinearOperator& a, const LinearPreconditioner& m,
                         const Eigen::VectorXd& b, Eigen::VectorXd& x,
                         const SolverOptions& options) {
  if (x.size() != b.size()) x = Eigen::VectorXd::Zero(b.size());
  // A zero right-hand side has the solution zero; the solvers below divide by |b|.
  if (b.norm() == 0) {
    x.setZero();
    SolveReport report;
    report.reason = StopReason::kConverged;
    return report;
  }
  switch (type) {
    case SolverType::kCg:
      return conjugate_gradient(a, m, b, x, options, false);
    case SolverType::kBiCgStab:
      return bicgstab(a, m, b, x, options);
    case SolverType::kQmr:
      return qmr(a, m, b, x, options);
    case SolverType::kGmres:
      return gmres(a, m, b, x, options);
    case SolverType::kAuto:
    case SolverType::kDirect:
      break;
  }
  throw std::invalid_argument(std::string("krylov_solve: '") + solver_type_name(type) +
                              "' is not a Krylov method (use StepSolver)");
}

SolveReport solve(const LinearOperator& a, const Eigen::VectorXd& b, Eigen::VectorXd& x,
                  const SolverOptions& options) {
  const auto* blocks = dynamic_cast<const ConstrainedBlockOperator*>(&a);
  switch (options.preconditioner) {
    case PreconditionerType::kNone:
      return krylov_solve(options.type, a, IdentityPreconditioner(), b, x, options);
    case PreconditionerType::kJacobi:
    case PreconditionerType::kBlockJacobi:
      return krylov_solve(
          options.type, a,
          BlockDiagonalPreconditioner(a, options.preconditioner == PreconditionerType::kJacobi), b,
          x, options);
    case PreconditionerType::kSsor: {
      if (!blocks) throw std::invalid_argument("SSOR needs the edge-block operator");
      BlockSsor ssor(*blocks);
      if (options.type == SolverType::kCg) return ssor.eisenstat_cg(b, x, options);
      return krylov_solve(options.type, a, ssor, b, x, options);
    }
    case PreconditionerType::kIncompleteCholesky: {
      if (!blocks) throw std::invalid_argument("incomplete Cholesky needs the edge-block operator");
      return krylov_solve(options.type, a, IncompleteCholeskyPreconditioner(*blocks), b, x,
                          options);
    }
    case PreconditionerType::kFactor:
      break;
  }
  throw std::invalid_argument(
      "the 'factor' preconditioner is kept across solves by a StepSolver; solve() cannot build it");
}

}  // namespace softbody
