#include "engine/solvers/step_solver.h"

#include <algorithm>
#include <cmath>

#include "engine/solvers/block_ssor.h"

namespace softbody {
namespace {

// Newton's directions (SolverOptions::newton_direction) apply in definite mode only.
bool newton_directions(const SolverOptions& o) {
  return o.newton_direction && o.definite;
}

// The factorization's flop rate relative to an iteration's (triangular solves and a product,
// memory-bound), measured with `softbody-bench solver` (bench/RESULTS.md): CHOLMOD's supernodal
// factorization (BLAS-3) of the bunny runs 5.5 times faster per flop than an iteration; the
// simplicial one of the knight 4 times slower. BLAS-3 pays only with wide supernodes: the
// knight's supernodal factor under average nodal pressure (88 flops per factor nonzero) ran 5
// times slower per flop than an iteration, the bunny's (712 per nonzero) 3.6-5.5 times faster.
// Between those the ratio is interpolated in log-log. Fixed ratios keep the refactoring
// decisions independent of the machine and its load.
constexpr double kSupernodalRateRatio = 5.5;
constexpr double kNarrowSupernodalRateRatio = 0.2;
constexpr double kNarrowFlopsPerNonzero = 90, kWideFlopsPerNonzero = 700;
constexpr double kSimplicialRateRatio = 0.25;

double supernodal_rate_ratio(double flops_per_nonzero) {
  const double t = std::clamp(std::log(flops_per_nonzero / kNarrowFlopsPerNonzero) /
                                  std::log(kWideFlopsPerNonzero / kNarrowFlopsPerNonzero),
                              0.0, 1.0);
  return kNarrowSupernodalRateRatio *
         std::pow(kSupernodalRateRatio / kNarrowSupernodalRateRatio, t);
}
// A factorization's fixed cost (calls, set-up), in iteration flops.
constexpr double kFactorizationOverhead = 2e5;
// A vertex block that moved this much (relative, Frobenius) since the factorization counts as
// changed; this share of the free vertices changed forces a new factor.
constexpr double kBlockChange = 0.5;
constexpr double kChangedShare = 0.05;

Mat3 symmetric_part(const Mat3& d) {
  return 0.5 * (d + d.transpose());
}

// sym of every vertex block: what a factorization of sym(A) saw on the diagonal.
std::vector<Mat3> symmetric_vertex_blocks(const EdgeBlockMatrix& a) {
  std::vector<Mat3> d(a.vertex_blocks.size());
  for (size_t v = 0; v < d.size(); ++v) d[v] = symmetric_part(a.vertex_blocks[v]);
  return d;
}

}  // namespace

bool vertex_blocks_symmetric(const ConstrainedBlockOperator& a) {
  if (!a.matrix().edge_skew.empty()) return false;
  const auto& blocks = a.matrix().vertex_blocks;
  for (size_t v = 0; v < blocks.size(); ++v) {
    if (a.is_fixed(static_cast<Index>(v))) continue;
    const Mat3& d = blocks[v];
    if ((d - d.transpose()).cwiseAbs().maxCoeff() > 1e-12 * d.cwiseAbs().maxCoeff()) return false;
  }
  return true;
}

StepSolver::StepSolver() = default;
StepSolver::~StepSolver() = default;

void StepSolver::reset() {
  worker_.reset();
  factor_.reset();
  spare_.reset();
  csc_.reset();
  topology_ = nullptr;
  fixed_.clear();
  factored_diagonal_.clear();
  factored_record_.reset();
  too_large_ = false;
  spent_since_factor_ = 0;
  solves_since_factor_ = 0;
  refactor_due_ = false;
}

void StepSolver::prepare_pattern(const ConstrainedBlockOperator& a) {
  if (csc_ && topology_ == &a.topology() && fixed_ == a.fixed()) return;
  reset();
  topology_ = &a.topology();
  fixed_ = a.fixed();
  csc_ = std::make_unique<SymmetricCsc>(a.topology(), a.fixed());
  factor_ = std::make_unique<SparseCholesky>();
  factor_->analyze(*csc_);
  too_large_ = factor_->predicted_nonzeros() > kMaxFactorNonzeros;
}

StepSolverState StepSolver::save_state() const {
  // Saved again before any solve: the restored state passes on unchanged.
  if (restored_) return *restored_;
  StepSolverState s;
  s.flops_since_factor = spent_since_factor_;
  s.solves_since_factor = solves_since_factor_;
  s.refactor_due = refactor_due_;
  s.factorizations = factorizations_;
  // A background worker may replace the factor at any solve (timing, which no state can capture),
  // so no factor is carried then; nor one that is not reused (LDL^T, a linearized step's shifted
  // one): only those have a record.
  if (factor_ && !worker_) s.factored = factored_record_;
  return s;
}

void StepSolver::restore_state(StepSolverState state) {
  reset();
  factorizations_ = state.factorizations;
  restored_ = std::move(state);
}

void StepSolver::apply_restored_state(const ConstrainedBlockOperator& a, bool definite_only) {
  if (!restored_) return;
  StepSolverState s = std::move(*restored_);
  restored_.reset();
  factorizations_ = s.factorizations;
  if (!s.factored) return;  // the original had no reusable factor either
  const FactoredMatrix& saved = *s.factored;
  const bool fits = saved.values.size() == csc_->values().size() &&
                    saved.diagonal.size() == a.matrix().vertex_blocks.size() &&
                    std::all_of(saved.values.begin(), saved.values.end(),
                                [](double v) { return std::isfinite(v); });
  if (!fits) {
    ++dropped_states_;
    return;
  }
  csc_->values() = saved.values;
  const FactorInfo info = saved.shift > 0 ? factor_->factorize_definite(*csc_, saved.shift)
                                          : factor_->factorize(*csc_, definite_only);
  if (info.kind != (saved.shift > 0 ? FactorKind::kShiftedCholesky : FactorKind::kCholesky) ||
      info.shift != saved.shift) {
    // Not what was saved (a Cholesky factor): refactor normally rather than reuse this one.
    ++dropped_states_;
    refactor_due_ = true;
    return;
  }
  factored_diagonal_ = saved.diagonal;
  factored_record_ = std::move(s.factored);
  spent_since_factor_ = s.flops_since_factor;
  solves_since_factor_ = s.solves_since_factor;
  refactor_due_ = s.refactor_due;
}

bool StepSolver::diagonal_changed(const ConstrainedBlockOperator& a) const {
  const auto& blocks = a.matrix().vertex_blocks;
  if (factored_diagonal_.size() != blocks.size()) return true;
  size_t changed = 0, free = 0;
  for (size_t v = 0; v < blocks.size(); ++v) {
    if (a.is_fixed(static_cast<Index>(v))) continue;
    ++free;
    const Mat3& old = factored_diagonal_[v];
    if ((symmetric_part(blocks[v]) - old).norm() > kBlockChange * old.norm()) ++changed;
  }
  return changed >
         std::max<size_t>(1, static_cast<size_t>(kChangedShare * static_cast<double>(free)));
}

FactorInfo StepSolver::factorize_now(const ConstrainedBlockOperator& a, const SolverOptions& o) {
  // Newton's directions start the ladder a rung below the last factor's shift: A's lowest
  // eigenvalue moves little between solves, so one or two factorizations find the next.
  const double last_shift = factor_->ready() ? factor_->info().shift : 0;
  const bool newton = newton_directions(o);
  return install_factor(
      a,
      [&] {
        return newton ? factor_->factorize_definite(*csc_, last_shift / 4)
                      : factor_->factorize(*csc_, o.definite);
      },
      newton);
}

template <typename Factorize>
FactorInfo StepSolver::install_factor(const ConstrainedBlockOperator& a, Factorize factorize,
                                      bool carry_shifted) {
  csc_->assign(a.matrix());
  const FactorInfo info = factorize();  // on one BLAS thread: see SparseCholesky's constructor
  start_factor_epoch(symmetric_vertex_blocks(a.matrix()));
  // Recorded for the state only when it is a factor the state carries (a copy of A's upper
  // triangle per factorization: small beside the factorization itself).
  if (info.kind == FactorKind::kCholesky ||
      (carry_shifted && info.kind == FactorKind::kShiftedCholesky))
    factored_record_ = std::make_shared<const FactoredMatrix>(
        FactoredMatrix{csc_->values(), factored_diagonal_, info.shift});
  return info;
}

bool StepSolver::has_definite_factor() const {
  return factor_ && factor_->ready() &&
         (factor_->info().kind == FactorKind::kCholesky ||
          factor_->info().kind == FactorKind::kShiftedCholesky);
}

bool StepSolver::reusable(const SolverOptions& o) const {
  const FactorKind kind = factor_->info().kind;
  return kind == FactorKind::kCholesky ||
         (newton_directions(o) && kind == FactorKind::kShiftedCholesky);
}

bool StepSolver::runs_newton_cg(const SolverOptions& o, bool symmetric) const {
  return (o.type == SolverType::kAuto || o.type == SolverType::kDirect) && newton_directions(o) &&
         symmetric && reusable(o);
}

void StepSolver::start_factor_epoch(std::vector<Mat3> factored_diagonal) {
  factored_diagonal_ = std::move(factored_diagonal);
  factored_record_.reset();
  ++factorizations_;
  spent_since_factor_ = 0;
  solves_since_factor_ = 0;
  refactor_due_ = false;
}

double StepSolver::iteration_cost() const {
  // Two triangular solves with L, one product with A (both triangles), vector updates.
  return 4 * factor_->info().nnz_factor + 4 * static_cast<double>(csc_->nonzeros()) +
         20 * static_cast<double>(csc_->size());
}

double StepSolver::factorization_cost() const {
  const FactorInfo& f = factor_->info();
  const double ratio =
      f.supernodal
          ? supernodal_rate_ratio(f.flops / std::max(static_cast<double>(f.nnz_factor), 1.0))
          : kSimplicialRateRatio;
  return kFactorizationOverhead + f.flops / ratio;
}

void StepSolver::account(int iterations, bool fresh) {
  const double cost = iterations * iteration_cost();
  if (fresh) {
    spent_since_factor_ = cost;
    solves_since_factor_ = 1;
    return;
  }
  spent_since_factor_ += cost;
  ++solves_since_factor_;
  // Refactor once the marginal solve costs more than the average solve since the factorization
  // (factorization included): with iteration counts that grow as A drifts this keeps the long-run
  // cost per solve near its minimum; with steady counts it never refactors.
  const double average = (factorization_cost() + spent_since_factor_) / solves_since_factor_;
  if (cost > average) refactor_due_ = true;
}

SolveReport StepSolver::run_krylov(const ConstrainedBlockOperator& a, const Eigen::VectorXd& b,
                                   Eigen::VectorXd& x, const SolverOptions& o,
                                   bool symmetric) const {
  const FactorPreconditioner m(*factor_);
  if (o.type != SolverType::kAuto && o.type != SolverType::kDirect)
    return krylov_solve(o.type, a, m, b, x, o);
  if (runs_newton_cg(o, symmetric) && o.root_direction) {
    SolveReport r = krylov_solve(SolverType::kGmres, a, m, b, x, o);
    r.method = "newton-gmres";
    r.shift = factor_->info().shift;
    return r;
  }
  if (runs_newton_cg(o, symmetric)) {
    // The factor is of a definite matrix (A's or A + sigma I's, perhaps of an earlier A), so M is
    // SPD. CG's iterates before negative curvature are descent directions for the step's
    // potential; with none yet, M^-1 r is (modified Newton).
    const Eigen::VectorXd start = x;
    SolveReport r = conjugate_gradient(a, m, b, x, o, /*stop_on_negative_curvature=*/true);
    r.method = "newton-cg";
    r.shift = factor_->info().shift;
    if (r.reason == StopReason::kBreakdown && r.iterations == 0) {
      Eigen::VectorXd ax, z;
      a.apply(start, ax);
      m.apply(b - ax, z);
      x = start + z;
      ++r.matvecs;
    }
    return r;
  }
  const double shift = factor_->info().kind == FactorKind::kShiftedCholesky && o.definite
                           ? factor_->info().shift
                           : 0.0;
  if (shift > 0) {
    // Definite mode: the factor is exactly that of sym(A + sigma I); solve that system.
    // (A + sigma I) x = b: for a step matrix, extra damping in this step only. (A proximal
    // variant, b + sigma x0 toward the previous velocity, was tried on seed 000's crush and gave
    // more speed spikes and bodies stuck inverted.)
    const ShiftedOperator shifted(a, shift);
    SolveReport r = symmetric ? conjugate_gradient(shifted, m, b, x, o, true)
                              : krylov_solve(SolverType::kGmres, shifted, m, b, x, o);
    r.method = symmetric ? "shifted-cholesky-cg" : "shifted-cholesky-gmres";
    r.shift = shift;
    return r;
  }
  if (symmetric && m.symmetric_positive_definite()) {
    SolveReport cg = conjugate_gradient(a, m, b, x, o, /*stop_on_negative_curvature=*/true);
    cg.method = "cholesky-cg";
    // In definite mode negative curvature means A turned indefinite since the factorization:
    // the caller refactors (and shifts) instead of iterating on the indefinite system.
    if (cg.reason != StopReason::kBreakdown || o.definite) return cg;
    // A has turned indefinite since the factorization: go on with GMRES from the CG iterate.
    SolverOptions rest = o;
    rest.max_iterations = std::max(1, o.max_iterations - cg.iterations);
    SolveReport g = krylov_solve(SolverType::kGmres, a, m, b, x, rest);
    g.iterations += cg.iterations;
    g.matvecs += cg.matvecs;
    g.method = "cholesky-gmres";
    return g;
  }
  SolveReport g = krylov_solve(SolverType::kGmres, a, m, b, x, o);
  g.method = factor_->info().kind == FactorKind::kLdlt       ? "ldlt-gmres"
             : factor_->info().kind == FactorKind::kCholesky ? "cholesky-gmres"
                                                             : "shifted-cholesky-gmres";
  return g;
}

SolveReport StepSolver::solve_iteratively(const ConstrainedBlockOperator& a,
                                          const Eigen::VectorXd& b, Eigen::VectorXd& x,
                                          const SolverOptions& o, bool symmetric) {
  // No factor fits: SSOR-preconditioned CG in Eisenstat's form, or GMRES with SSOR.
  SolverOptions inner = o;
  inner.max_iterations = std::max(o.max_iterations, 2000);
  BlockSsor ssor(a);
  SolveReport r = symmetric && ssor.symmetric_positive_definite()
                      ? ssor.eisenstat_cg(b, x, inner)
                      : krylov_solve(SolverType::kGmres, a, ssor, b, x, inner);
  r.method = symmetric ? "ssor-cg" : "ssor-gmres";
  return r;
}

Eigen::MatrixXd StepSolver::delassus(const ConstrainedBlockOperator& a,
                                     const Eigen::SparseMatrix<double>& jt,
                                     bool keep_unknowns) const {
  if (!has_definite_factor())
    throw std::logic_error("StepSolver::delassus needs a definite factor (solve first)");
  Eigen::SparseMatrix<double> free = jt;
  free.prune([&](Eigen::Index row, Eigen::Index, double) {
    return !a.is_fixed(static_cast<Index>(row / 3));
  });
  return factor_->inverse_quadratic_form(free, keep_unknowns);
}

bool StepSolver::ensure_definite_factor(const ConstrainedBlockOperator& a) {
  prepare_pattern(a);
  if (has_definite_factor()) return false;
  factorize_definite_now(a);
  return true;
}

void StepSolver::factorize_definite_now(const ConstrainedBlockOperator& a) {
  prepare_pattern(a);
  // Carried by states whether plain or shifted (as a Newton solve's: a continuation stays
  // identical and keeps it as the original does).
  install_factor(
      a, [&] { return factor_->factorize_definite(*csc_, 0); }, true);
}

bool StepSolver::has_kept_factor() const {
  return has_definite_factor() && factored_record_ &&
         factored_record_->shift == factor_->info().shift;
}

bool StepSolver::prepare_kept_factor(const ConstrainedBlockOperator& a) {
  prepare_pattern(a);
  apply_restored_state(a, true);
  return has_kept_factor();
}

bool StepSolver::refresh_definite_factor(const ConstrainedBlockOperator& a, double tolerance) {
  prepare_pattern(a);
  apply_restored_state(a, true);
  if (tolerance > 0 && has_kept_factor()) {
    csc_->assign(a.matrix());  // scratch: a factorization assigns it again
    const std::vector<double>& now = csc_->values();
    const std::vector<double>& then = factored_record_->values;
    if (now.size() == then.size()) {
      double change = 0, size = 0;
      for (size_t k = 0; k < now.size(); ++k) {
        change += (now[k] - then[k]) * (now[k] - then[k]);
        size += now[k] * now[k];
      }
      if (change <= tolerance * tolerance * size) return false;
    }
  }
  factorize_definite_now(a);
  return true;
}

void StepSolver::apply_factor_inverse(const ConstrainedBlockOperator& a, const Eigen::VectorXd& b,
                                      Eigen::VectorXd& x) const {
  if (!factor_ || !factor_->ready())
    throw std::logic_error("StepSolver::apply_factor_inverse needs a factor");
  Eigen::VectorXd free = b;
  const Index n = a.topology().num_vertices();
  for (Index v = 0; v < n; ++v)
    if (a.is_fixed(v)) free.segment<3>(3 * v).setZero();
  factor_->solve(free, x);
  for (Index v = 0; v < n; ++v)
    if (a.is_fixed(v)) x.segment<3>(3 * v).setZero();
}

SolveReport StepSolver::solve(const ConstrainedBlockOperator& a, const Eigen::VectorXd& b,
                              Eigen::VectorXd& x, const SolverOptions& o) {
  const bool uses_factor = o.type == SolverType::kAuto || o.type == SolverType::kDirect ||
                           o.preconditioner == PreconditionerType::kFactor;
  if (!uses_factor) {
    SolveReport r = softbody::solve(a, b, x, o);
    r.method = solver_type_name(o.type);
    return r;
  }
  if (x.size() != b.size()) x = Eigen::VectorXd::Zero(b.size());
  prepare_pattern(a);
  apply_restored_state(a, o.definite);
  const bool symmetric = vertex_blocks_symmetric(a);
  if (o.type == SolverType::kAuto && too_large_) return solve_iteratively(a, b, x, o, symmetric);

  bool installed = false;
  int made = 0;  // factorizations on this thread during this solve
  // A factor finished in the background since the last solve replaces ours; ours becomes the
  // worker's next buffer.
  if (worker_) {
    std::vector<Mat3> diagonal;
    if (std::unique_ptr<SparseCholesky> done = worker_->take(diagonal)) {
      // Only a Cholesky factor is worth keeping (see `wanted` below).
      if (done->ready() && done->info().kind == FactorKind::kCholesky) {
        spare_ = std::move(factor_);
        factor_ = std::move(done);
        start_factor_epoch(std::move(diagonal));
        installed = true;
      } else {
        spare_ = std::move(done);
      }
    }
  }
  // An LDL^T or shifted factor means A is (or was) indefinite: an eigenvalue near zero makes the
  // inverse change fast, so such a factor is not kept for the next solve.
  const bool wanted = !factor_->ready() || o.type == SolverType::kDirect || refactor_due_ ||
                      !reusable(o) || diagonal_changed(a);
  if (wanted) {
    if (o.refactor == RefactorMode::kBackground && factor_->ready() &&
        o.type != SolverType::kDirect) {
      if (!worker_) worker_ = std::make_unique<BackgroundFactorizer>(*csc_);
      if (worker_->idle()) {
        csc_->assign(a.matrix());
        worker_->submit(csc_->values(), symmetric_vertex_blocks(a.matrix()), std::move(spare_));
        refactor_due_ = false;
      }
    } else {
      factorize_now(a, o);
      ++made;
    }
  }
  const Eigen::VectorXd warm_start = x;
  SolverOptions first = o;
  if (made == 0) first.max_iterations = std::min(o.max_iterations, kReuseIterationLimit);
  SolveReport result = run_krylov(a, b, x, first, symmetric);
  // Negative curvature ends a Newton direction; no new factor would change that.
  const bool truncated =
      runs_newton_cg(o, symmetric) && result.reason == StopReason::kBreakdown && x.allFinite();
  if (result.reason != StopReason::kConverged && made == 0 && !truncated) {
    // The reused factor no longer preconditions well enough: replace it now and go on (from the
    // warm start if the iterate went non-finite).
    if (!x.allFinite() || o.definite) x = warm_start;
    factorize_now(a, o);
    ++made;
    SolverOptions rest = o;
    rest.max_iterations = std::max(1, o.max_iterations - result.iterations);
    SolveReport more = run_krylov(a, b, x, rest, symmetric);
    more.iterations += result.iterations;
    more.matvecs += result.matvecs;
    result = more;
  }
  account(result.iterations, made > 0);
  result.background_factor_installed = installed;
  result.factorizations = made;
  result.factor = factor_->info();
  return result;
}

}  // namespace softbody
