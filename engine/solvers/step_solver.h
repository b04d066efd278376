// The solver layer every integrator shares (design guide §3): it solves with the step matrix A
// many times while A drifts slowly, so it keeps state across solves: the sparsity pattern and its
// symbolic analysis, the latest numeric factor, and a policy for when to refresh it. Integrators
// ask for an accuracy (options.tolerance), never for an iteration count.
//
// kAuto: the last factor of sym(A) preconditions CG (A symmetric, factor Cholesky) or GMRES (A
//   non-symmetric through friction Jacobians, or the factor LDL^T / shifted); a new factor is made
//   when (a) none exists or the last one was not positive definite (an indefinite matrix's inverse
//   changes fast: such factors serve one solve), (b) the reused one needed more than
//   kReuseIterationLimit iterations
//   without converging (then at once, in the same solve), (c) many vertex blocks changed a lot
//   (contacts appearing, another dt), or (d) the cost model says so: the last solve's iterations
//   cost more than the average cost per solve since the factorization, factorization included
//   (the classic rule for reusing Jacobians). Costs come from flop counts, not clocks, so the
//   decisions, and therefore the results, do not depend on the machine or its load. When the
//   predicted factor does not fit the memory limit, auto runs SSOR-preconditioned CG (Eisenstat)
//   or GMRES instead. kDirect factorizes every solve. Krylov types run as configured; with the
//   kFactor preconditioner they use the reused factor under the same policy. In definite mode
//   (options.definite) an indefinite A is solved as A + sigma I (see SparseCholesky).
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "engine/solvers/background_factorizer.h"
#include "engine/solvers/krylov.h"
#include "engine/solvers/sparse_cholesky.h"

namespace softbody {

// The matrix a reused factor was made from (the factor is a deterministic function of it, so it
// is made again from this rather than stored): sym(A) in the solver's CSC pattern and the sym of
// A's vertex blocks. Immutable once made, so states share it instead of copying it every step.
struct FactoredMatrix {
  std::vector<double> values;
  std::vector<Mat3> diagonal;
  double shift = 0;  // a shifted factor's sigma (Newton directions reuse such factors)
};

// The solver's memory across steps, part of the simulation state (rollback, snapshots, settings
// changes and migration carry it): the reused factor's matrix and the refresh policy's history.
// Equal states (the same factored matrix object, the same counts) are the same memory.
struct StepSolverState {
  std::shared_ptr<const FactoredMatrix> factored;  // null: no reusable factor
  double flops_since_factor = 0;
  int solves_since_factor = 0;
  bool refactor_due = false;
  long factorizations = 0;
  bool operator==(const StepSolverState&) const = default;
};

class StepSolver {
 public:
  // Iterations a reused factor may take before it is replaced within the same solve.
  static constexpr int kReuseIterationLimit = 20;
  // Above this many entries of L (8 bytes each) auto does not factorize.
  static constexpr double kMaxFactorNonzeros = 2e8;

  StepSolver();
  ~StepSolver();
  StepSolver(const StepSolver&) = delete;
  StepSolver& operator=(const StepSolver&) = delete;

  // Solves A x = b from the warm start x.
  SolveReport solve(const ConstrainedBlockOperator& a, const Eigen::VectorXd& b, Eigen::VectorXd& x,
                    const SolverOptions& options);
  // Forgets the pattern, the factor and the policy's history (e.g. when the model changes).
  void reset();

  // The state to carry into a snapshot. A factor is carried only when it is reused by the next
  // solve (a Cholesky factor, synchronous refresh): a background factorization in flight is
  // timing, which no snapshot can capture; the restored session then refactors at its first solve.
  StepSolverState save_state() const;
  // Takes a saved state; the factor is made again from it at the next solve (the pattern is known
  // only then). A state whose sizes do not match that solve's pattern is dropped (the solve then
  // factorizes afresh, as with no state) and counted in dropped_states().
  void restore_state(StepSolverState state);
  long dropped_states() const { return dropped_states_; }

  long factorizations() const { return factorizations_; }
  // The factor in use, if any.
  const SparseCholesky* factor() const { return factor_.get(); }

  // The Delassus operator W = J F^-1 J^T of constraint rows J (given as J^T: 3n x m) with the
  // factor F the last solve left, as seed 002 reuses its preconditioner's factor: W is then that
  // of the matrix F was made from (possibly a few steps old, or shifted to be definite), not
  // exactly of today's A. Rows of fixed vertices are dropped (they do not move). Throws
  // std::logic_error without a definite factor (contact needs W positive definite).
  // `keep_unknowns`: see SparseCholesky::inverse_quadratic_form (the contact stage asks for it
  // where the kept compliances pay: ConstraintContact::resolve).
  Eigen::MatrixXd delassus(const ConstrainedBlockOperator& a, const Eigen::SparseMatrix<double>& jt,
                           bool keep_unknowns = false) const;
  // Makes a definite factor available to delassus and apply_factor_inverse: keeps the one in use
  // if it is Cholesky (possibly shifted), else factors sym(A) now (shifted if A is indefinite; an
  // iterative solve left none, or an LDL^T one). Returns whether it factorized.
  bool ensure_definite_factor(const ConstrainedBlockOperator& a);
  // Factors sym(A) now (shifted if indefinite) and reuses that factor from here on, as if a solve
  // had made it: contact's compliance of today's matrix (ContactOptions::fresh_compliance).
  void factorize_definite_now(const ConstrainedBlockOperator& a);
  // factorize_definite_now unless the factor in use is a kept definite factor (has_kept_factor)
  // of a matrix within `tolerance` of sym(A) (relative, in the Frobenius norm of the stored
  // triangle): a held grasp's step matrix changes by ~1e-8 a step, and its factorization was 40 %
  // of the contact stage. The decision reads only the state's factored matrix (snapshots carry
  // it), so a continuation decides alike. Returns whether it factorized.
  bool refresh_definite_factor(const ConstrainedBlockOperator& a, double tolerance);
  // Whether the factor in use is a definite factor a state carries with the matrix it was made
  // from: a plain Cholesky factor, or one of sym(A) + sigma I (Newton's, or the one
  // factorize_definite_now made where A was indefinite). The fresh compliance keeps either: a
  // shifted factor of a matrix within the tolerance of today's is the factor a new scan would make
  // (the same rung, to the tolerance), and a squeezed body's indefinite matrix otherwise cost a
  // ladder scan every step (scenes/grasp.json held: 6 of its 25 ms).
  bool has_kept_factor() const;
  // Readies the factor in use for delassus without a solve (a restored state's is made again
  // here) and says whether it is a kept one (has_kept_factor).
  bool prepare_kept_factor(const ConstrainedBlockOperator& a);
  // x = F^-1 b with the factor delassus uses, fixed vertices' rows zero: the motion a constraint
  // force makes in the model W describes (seed 002's corrective motion).
  void apply_factor_inverse(const ConstrainedBlockOperator& a, const Eigen::VectorXd& b,
                            Eigen::VectorXd& x) const;

 private:
  void prepare_pattern(const ConstrainedBlockOperator& a);
  // Rebuilds the saved factor (if one was restored) once the pattern is known.
  void apply_restored_state(const ConstrainedBlockOperator& a, bool definite_only);
  bool diagonal_changed(const ConstrainedBlockOperator& a) const;
  FactorInfo factorize_now(const ConstrainedBlockOperator& a, const SolverOptions& options);
  // Factors sym(A) by `factorize` (on csc_, which it fills) and puts the factor in use: a new
  // epoch, recorded for states when it is Cholesky (or shifted, with `carry_shifted`).
  template <typename Factorize>
  FactorInfo install_factor(const ConstrainedBlockOperator& a, Factorize factorize,
                            bool carry_shifted);
  // Whether the factor in use is a (possibly shifted) Cholesky one: W needs it definite.
  bool has_definite_factor() const;
  // Whether the factor in use may serve another solve with these options.
  bool reusable(const SolverOptions& options) const;
  // Whether run_krylov gives Newton's direction (truncated CG on A) with the factor in use.
  bool runs_newton_cg(const SolverOptions& options, bool symmetric) const;
  // A new factor is in use (made here or by the worker): its diagonal, the count, a fresh cost
  // history.
  void start_factor_epoch(std::vector<Mat3> factored_diagonal);
  // Krylov iterations on `a`, or on A + sigma I when the factor in use is a shifted one and the
  // definite mode asked for it; truncated CG for Newton's directions.
  SolveReport run_krylov(const ConstrainedBlockOperator& a, const Eigen::VectorXd& b,
                         Eigen::VectorXd& x, const SolverOptions& options, bool symmetric) const;
  SolveReport solve_iteratively(const ConstrainedBlockOperator& a, const Eigen::VectorXd& b,
                                Eigen::VectorXd& x, const SolverOptions& options, bool symmetric);
  void account(int iterations, bool fresh);
  double iteration_cost() const;
  double factorization_cost() const;

  const MeshTopology* topology_ = nullptr;
  std::vector<std::uint8_t> fixed_;
  std::unique_ptr<SymmetricCsc> csc_;
  std::unique_ptr<SparseCholesky> factor_;
  std::unique_ptr<SparseCholesky> spare_;  // the previous factor, the worker's next buffer
  std::vector<Mat3> factored_diagonal_;    // sym vertex blocks of the factored matrix
  // The factored matrix as a state records it; null while the factor is not one a state carries.
  std::shared_ptr<const FactoredMatrix> factored_record_;
  std::unique_ptr<BackgroundFactorizer> worker_;
  bool too_large_ = false;
  // Cost model, in flops since the last factorization.
  double spent_since_factor_ = 0;
  int solves_since_factor_ = 0;
  bool refactor_due_ = false;
  long factorizations_ = 0;
  std::optional<StepSolverState> restored_;
  long dropped_states_ = 0;
};

// True when A has no skew edge part and every free vertex block is symmetric (to round-off): then
// A is symmetric.
bool vertex_blocks_symmetric(const ConstrainedBlockOperator& a);

}  // namespace softbody
