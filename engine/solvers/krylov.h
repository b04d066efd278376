// Iterative solvers for A x = b on the edge-block system matrix: CG, preconditioned CG (Jacobi,
// 3x3 block-Jacobi), BiCGStab and QMR (Freund-Nachtigal, without look-ahead, for non-symmetric
// and indefinite A). Each starts from the x it is given (warm start), stops on a relative
// residual tolerance, an iteration cap or a wall-clock budget (seed 000 §4.1: as many iterations
// as fit in the step), detects breakdown, and reports why it stopped.
#pragma once

#include <string>

#include "engine/solvers/linear_operator.h"

namespace softbody {

enum class SolverType { kCg, kBiCgStab, kQmr };
enum class Preconditioner { kNone, kJacobi, kBlockJacobi };

struct SolverOptions {
  SolverType type = SolverType::kQmr;
  Preconditioner preconditioner = Preconditioner::kNone;
  double tolerance = 1e-6;  // on |b - A x| / |b|
  int max_iterations = 100;
  double time_budget_s = 0;  // 0: no wall-clock limit
};

enum class StopReason { kConverged, kMaxIterations, kTimeBudget, kBreakdown, kNonFinite };

struct SolveReport {
  int iterations = 0;
  int matvecs = 0;               // products with A or A^T (QMR, BiCGStab: 2 per iteration; CG: 1)
  double relative_residual = 0;  // |b - A x| / |b| as the solver tracks it
  StopReason reason = StopReason::kMaxIterations;
};

SolveReport solve(const LinearOperator& a, const Eigen::VectorXd& b, Eigen::VectorXd& x,
                  const SolverOptions& options);

const char* solver_type_name(SolverType type);
SolverType parse_solver_type(const std::string& name);  // "cg", "bicgstab", "qmr"
const char* preconditioner_name(Preconditioner p);
Preconditioner parse_preconditioner(const std::string& name);  // "none", "jacobi", "block-jacobi"
const char* stop_reason_name(StopReason reason);

}  // namespace softbody
