// Iterative solvers for A x = b on the edge-block system matrix: CG, BiCGStab, QMR
// (Freund-Nachtigal, without look-ahead, for non-symmetric and indefinite A) and restarted GMRES
// (right-preconditioned, for non-symmetric A with any preconditioner, including an indefinite
// factorization). Each starts from the x it is given (warm start), stops on a relative residual
// tolerance, an iteration cap or a wall-clock budget (seed 000 §4.1: as many iterations as fit in
// the step), detects breakdown, and reports why it stopped.
#pragma once

#include "engine/solvers/linear_operator.h"
#include "engine/solvers/preconditioner.h"
#include "engine/solvers/solver_options.h"

namespace softbody {

// One Krylov method with a given preconditioner. `type` must be kCg, kBiCgStab, kQmr or kGmres.
SolveReport krylov_solve(SolverType type, const LinearOperator& a, const LinearPreconditioner& m,
                         const Eigen::VectorXd& b, Eigen::VectorXd& x,
                         const SolverOptions& options);

// CG alone; with `stop_on_negative_curvature` it stops with kBreakdown as soon as p^T A p <= 0
// (A or M not positive definite), leaving x at the last iterate, so a caller can go on with GMRES.
SolveReport conjugate_gradient(const LinearOperator& a, const LinearPreconditioner& m,
                               const Eigen::VectorXd& b, Eigen::VectorXd& x,
                               const SolverOptions& options, bool stop_on_negative_curvature);

// A Krylov method with one of the matrix-built preconditioners (none, Jacobi, block-Jacobi, SSOR,
// incomplete Cholesky), stateless; for the reused factorization and auto use StepSolver.
SolveReport solve(const LinearOperator& a, const Eigen::VectorXd& b, Eigen::VectorXd& x,
                  const SolverOptions& options);

}  // namespace softbody
