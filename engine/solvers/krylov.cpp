#include "engine/solvers/krylov.h"

#include <Eigen/LU>
#include <chrono>
#include <cmath>
#include <stdexcept>

namespace softbody {
namespace {

using Vector = Eigen::VectorXd;
using Clock = std::chrono::steady_clock;

// z = M^-1 r (or M^-T r) for the chosen preconditioner.
class PreconditionerApply {
 public:
  PreconditionerApply(const LinearOperator& a, Preconditioner kind) : kind_(kind) {
    if (kind == Preconditioner::kNone) return;
    std::vector<Mat3> blocks = a.diagonal_blocks();
    inverse_.resize(blocks.size());
    for (size_t v = 0; v < blocks.size(); ++v) {
      const Mat3& d = blocks[v];
      if (kind == Preconditioner::kJacobi) {
        Vec3 diag = d.diagonal();
        for (int k = 0; k < 3; ++k) diag[k] = std::abs(diag[k]) > 0 ? 1.0 / diag[k] : 1.0;
        inverse_[v] = diag.asDiagonal();
      } else {
        Eigen::FullPivLU<Mat3> lu(d);
        inverse_[v] = lu.isInvertible() ? Mat3(lu.inverse()) : Mat3::Identity();
      }
    }
  }
  void apply(const Vector& r, Vector& z, bool transpose = false) const {
    if (kind_ == Preconditioner::kNone) {
      z = r;
      return;
    }
    z.resize(r.size());
    for (size_t v = 0; v < inverse_.size(); ++v) {
      const auto i = 3 * static_cast<Eigen::Index>(v);
      z.segment<3>(i) = transpose ? Vec3(inverse_[v].transpose() * r.segment<3>(i))
                                  : Vec3(inverse_[v] * r.segment<3>(i));
    }
  }

 private:
  Preconditioner kind_;
  std::vector<Mat3> inverse_;
};

// Tracks the iteration cap and wall-clock budget.
class StopWatch {
 public:
  explicit StopWatch(const SolverOptions& o) : options_(o), start_(Clock::now()) {}
  bool out_of_time() const {
    return options_.time_budget_s > 0 &&
           std::chrono::duration<double>(Clock::now() - start_).count() >= options_.time_budget_s;
  }

 private:
  const SolverOptions& options_;
  Clock::time_point start_;
};

bool finite(double x) {
  return std::isfinite(x);
}

SolveReport conjugate_gradient(const LinearOperator& a, const Vector& b, Vector& x,
                               const SolverOptions& o) {
  SolveReport report;
  const PreconditionerApply m(a, o.preconditioner);
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
    if (report.relative_residual <= o.tolerance)
      return report.reason = StopReason::kConverged, report;
    if (report.iterations >= o.max_iterations)
      return report.reason = StopReason::kMaxIterations, report;
    if (watch.out_of_time()) return report.reason = StopReason::kTimeBudget, report;
    a.apply(p, q);
    ++report.matvecs;
    const double pq = p.dot(q);
    if (!finite(pq)) return report.reason = StopReason::kNonFinite, report;
    if (pq == 0) return report.reason = StopReason::kBreakdown, report;
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

SolveReport bicgstab(const LinearOperator& a, const Vector& b, Vector& x, const SolverOptions& o) {
  SolveReport report;
  const PreconditionerApply m(a, o.preconditioner);
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
    if (report.relative_residual <= o.tolerance)
      return report.reason = StopReason::kConverged, report;
    if (report.iterations >= o.max_iterations)
      return report.reason = StopReason::kMaxIterations, report;
    if (watch.out_of_time()) return report.reason = StopReason::kTimeBudget, report;
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
SolveReport qmr(const LinearOperator& a, const Vector& b, Vector& x, const SolverOptions& o) {
  SolveReport report;
  const PreconditionerApply m1(a, o.preconditioner);
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
    y_tilde = y;                               // M2 y~ = y with M2 = I
    m1.apply(z, z_tilde, /*transpose=*/true);  // M1^T z~ = z
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

}  // namespace

SolveReport solve(const LinearOperator& a, const Eigen::VectorXd& b, Eigen::VectorXd& x,
                  const SolverOptions& options) {
  if (x.size() != b.size()) x = Eigen::VectorXd::Zero(b.size());
  // A zero right-hand side has the solution zero; the solvers below divide by |b|.
  if (b.norm() == 0) {
    x.setZero();
    SolveReport report;
    report.reason = StopReason::kConverged;
    return report;
  }
  switch (options.type) {
    case SolverType::kCg:
      return conjugate_gradient(a, b, x, options);
    case SolverType::kBiCgStab:
      return bicgstab(a, b, x, options);
    case SolverType::kQmr:
      return qmr(a, b, x, options);
  }
  throw std::invalid_argument("unknown solver type");
}

const char* solver_type_name(SolverType type) {
  switch (type) {
    case SolverType::kCg:
      return "cg";
    case SolverType::kBiCgStab:
      return "bicgstab";
    case SolverType::kQmr:
      return "qmr";
  }
  return "?";
}

SolverType parse_solver_type(const std::string& name) {
  if (name == "cg") return SolverType::kCg;
  if (name == "bicgstab") return SolverType::kBiCgStab;
  if (name == "qmr") return SolverType::kQmr;
  throw std::invalid_argument("unknown solver '" + name + "' (cg, bicgstab, qmr)");
}

const char* preconditioner_name(Preconditioner p) {
  switch (p) {
    case Preconditioner::kNone:
      return "none";
    case Preconditioner::kJacobi:
      return "jacobi";
    case Preconditioner::kBlockJacobi:
      return "block-jacobi";
  }
  return "?";
}

Preconditioner parse_preconditioner(const std::string& name) {
  if (name == "none") return Preconditioner::kNone;
  if (name == "jacobi") return Preconditioner::kJacobi;
  if (name == "block-jacobi") return Preconditioner::kBlockJacobi;
  throw std::invalid_argument("unknown preconditioner '" + name + "' (none, jacobi, block-jacobi)");
}

const char* stop_reason_name(StopReason reason) {
  switch (reason) {
    case StopReason::kConverged:
      return "converged";
    case StopReason::kMaxIterations:
      return "max_iterations";
    case StopReason::kTimeBudget:
      return "time_budget";
    case StopReason::kBreakdown:
      return "breakdown";
    case StopReason::kNonFinite:
      return "non_finite";
  }
  return "?";
}

}  // namespace softbody
