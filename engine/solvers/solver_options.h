// What a caller asks of the linear solver layer and what it reports back. Shared by the Krylov
// methods, the factorizations and the stateful StepSolver that integrators use.
#pragma once

#include <string>

namespace softbody {

// kAuto: a sparse factorization reused as a preconditioner while the matrix drifts, refreshed by
//   a cost model (or an iterative method when no factor fits in memory); converges to the
//   tolerance. kDirect: a new factorization every solve (plus a few Krylov iterations where the
//   factor is not of the exact matrix). The others are plain Krylov methods with the chosen
//   preconditioner; kCg with kSsor runs in Eisenstat's form.
enum class SolverType { kAuto, kDirect, kCg, kBiCgStab, kQmr, kGmres };
enum class PreconditionerType {
  kNone,
  kJacobi,
  kBlockJacobi,
  kSsor,                // symmetric block Gauss-Seidel (SSOR with omega = 1)
  kIncompleteCholesky,  // Eigen's IncompleteCholesky (Lin-More, with a diagonal shift)
  kFactor,              // the StepSolver's reused sparse factorization (auto's preconditioner)
};
// When a reused factor is refreshed: at once on the solving thread, or by a worker thread while
// the old factor keeps serving (the asynchronous preconditioner of Courtecuisse et al.).
enum class RefactorMode { kSync, kBackground };

struct SolverOptions {
  SolverType type = SolverType::kAuto;
  PreconditionerType preconditioner = PreconditionerType::kNone;  // Krylov types only
  double tolerance = 1e-6;                                        // on |b - A x| / |b|
  // Krylov types: the iteration cap. auto/direct: a safety cap on iterations in one solve.
  int max_iterations = 100;
  double time_budget_s = 0;  // 0: no wall-clock limit (Krylov types)
  RefactorMode refactor = RefactorMode::kSync;
  int gmres_restart = 40;
  // auto/direct: when sym(A) is indefinite, solve (A + sigma I) x = b instead, with sigma one
  // rung (4x) above the smallest shift on a 4x ladder that makes it definite, so
  // sigma is in (4, 16] |lambda_min| (reported in SolveReport::shift). For a step matrix this is
  // extra damping in that step only: the linearized step is well posed and cannot amplify a
  // buckling mode. Off: the exact indefinite system is solved (LDL^T + GMRES).
  bool definite = true;
  // auto/direct, for Newton's directions (engine/sim/bdf_newton.h), where a definite stand-in for
  // A changes only Newton's path: CG on A itself, preconditioned by the reused factor, which may
  // be a shifted one (kept across solves, its shift warm-started from the last one), and stopped
  // at negative curvature with the last iterate (truncated Newton; with none yet, the factor's
  // solution). No factorization is made because A is indefinite. With `definite` off this is
  // ignored (exact indefinite solves).
  bool newton_direction = false;
  // With newton_direction: GMRES on A itself, preconditioned by the same reused (possibly
  // shifted) factor, toward the root of Newton's linearization rather than a descent direction.
  bool root_direction = false;
};

enum class StopReason { kConverged, kMaxIterations, kTimeBudget, kBreakdown, kNonFinite };

// How the last factorization went. kCholesky: sym(A) is positive definite (LL^T, or LDL^T with a
// positive D). kLdlt: indefinite, factored without pivoting. kShiftedCholesky: indefinite and
// LDL^T failed or was not wanted (definite mode), so A + sigma I was factored.
enum class FactorKind { kNone, kCholesky, kLdlt, kShiftedCholesky };

struct FactorInfo {
  FactorKind kind = FactorKind::kNone;
  double factor_ms = 0;     // wall-clock time of the numeric factorization
  double analyze_ms = 0;    // symbolic analysis (once per sparsity pattern)
  long nnz_matrix = 0;      // stored entries of the matrix (upper triangle)
  long nnz_factor = 0;      // entries of L
  double fill = 0;          // nnz_factor / nnz_matrix
  double flops = 0;         // of the numeric factorization
  double shift = 0;         // sigma of kShiftedCholesky
  bool supernodal = false;  // CHOLMOD's supernodal (BLAS-3) form, else simplicial
};

struct SolveReport {
  int iterations = 0;
  int matvecs = 0;               // products with A or A^T (QMR, BiCGStab: 2 per iteration; CG: 1)
  double relative_residual = 0;  // |b - A x| / |b| as the solver tracks it
  StopReason reason = StopReason::kMaxIterations;
  // Set by the StepSolver: factorizations made during this solve (0 when an old factor served),
  // the factor in use, and the method that ran.
  int factorizations = 0;
  bool background_factor_installed = false;
  // sigma actually added to A (definite mode); for Newton's directions the sigma of the factor
  // that preconditioned them (A itself is solved); 0 otherwise.
  double shift = 0;
  FactorInfo factor;
  const char* method = "";
};

const char* solver_type_name(SolverType type);
SolverType parse_solver_type(const std::string& name);
const char* preconditioner_name(PreconditionerType p);
PreconditionerType parse_preconditioner(const std::string& name);
const char* refactor_mode_name(RefactorMode mode);
RefactorMode parse_refactor_mode(const std::string& name);
const char* stop_reason_name(StopReason reason);
const char* factor_kind_name(FactorKind kind);

}  // namespace softbody
