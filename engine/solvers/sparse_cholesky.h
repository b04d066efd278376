// A sparse factorization of the symmetric part of the step matrix with CHOLMOD (SuiteSparse):
// simplicial or supernodal (BLAS-3) as CHOLMOD's analysis chooses, with the METIS or AMD ordering,
// whichever fills less. Positive definite matrices get Cholesky; indefinite ones LDL^T (StVK
// under compression, seed 000's crush) or, in definite mode or when LDL^T meets a tiny pivot,
// Cholesky of A + sigma I. The symbolic analysis is done once per sparsity pattern; each
// factorize() is numeric only. Not thread-safe: one object per thread (the StepSolver's background
// worker owns its own).
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <chrono>
#include <cmath>
#include <memory>
#include <vector>

#include "engine/solvers/preconditioner.h"
#include "engine/solvers/symmetric_csc.h"

namespace softbody {

// CHOLMOD's choice between its simplicial (LDL^T) and supernodal (BLAS-3 LL^T) forms, by the flops
// per factor entry; tests force either to cover both.
enum class FactorForm { kAuto, kSimplicial, kSupernodal };

class SparseCholesky {
 public:
  explicit SparseCholesky(FactorForm form = FactorForm::kAuto);
  ~SparseCholesky();
  SparseCholesky(const SparseCholesky&) = delete;
  SparseCholesky& operator=(const SparseCholesky&) = delete;

  // Orders and analyses the pattern of `a` (values are not read). Returns the analysis time [ms].
  double analyze(const UpperCscView& a);
  double analyze(const SymmetricCsc& a) { return analyze(a.view()); }
  // nnz(L) and factorization flops the analysis predicts (for the memory and cost models).
  double predicted_nonzeros() const { return predicted_nnz_; }
  double predicted_flops() const { return predicted_flops_; }

  // Numeric factorization of a's current values (same pattern as analysed). With
  // `definite_only` an indefinite matrix goes straight to the shifted Cholesky (no LDL^T).
  FactorInfo factorize(const UpperCscView& a, bool definite_only = false);
  FactorInfo factorize(const SymmetricCsc& a, bool definite_only = false) {
    return factorize(a.view(), definite_only);
  }
  // Cholesky of A + sigma I with the smallest sigma on the ladder from `from` (4x per rung; from
  // below the ladder's first rung, 1e-4 of the mean |diagonal|: A itself first) that is positive
  // definite; no margin rung. For preconditioners, where any definite matrix near A serves
  // (Newton's directions, StepSolver): a caller that passes the last shift over 4 finds the next
  // one in one or two factorizations instead of climbing the whole ladder. kCholesky when sigma
  // is 0, kShiftedCholesky otherwise, kNone if none up to 1e6 of the mean |diagonal| is.
  FactorInfo factorize_definite(const UpperCscView& a, double from);
  FactorInfo factorize_definite(const SymmetricCsc& a, double from) {
    return factorize_definite(a.view(), from);
  }
  bool ready() const { return info_.kind != FactorKind::kNone; }
  const FactorInfo& info() const { return info_; }

  // x = F^-1 b with the last factor F.
  void solve(const Eigen::VectorXd& b, Eigen::VectorXd& x) const;
  // The same for every column of b at once (one pass over the factor per block of columns).
  void solve(const Eigen::MatrixXd& b, Eigen::MatrixXd& x) const;
  // W = B^T F^-1 B for a sparse B (n x m) and the last factor F = P^T L D L^T P: the Delassus
  // operator of constraint rows J = B^T (contact, seed 002). By half-solves, Y = L^-1 P B (sparse:
  // a column touches only its rows' elimination-tree paths) and W = Y^T D^-1 Y (D = I for an
  // LL^T factor), instead of m full solves. For a shifted factor it is that of A + sigma I.
  // With `keep_unknowns` W comes from the compliances between B's single unknowns, kept until the
  // next factorization: a later B over the same unknowns costs no solve. A simplicial factor keeps
  // every unknown it has solved (UnitCompliance); a supernodal one the block of the last set
  // (UnknownBlockCompliance, up to UnitCompliance::kMaxUnknowns unknowns). Without it every call
  // solves B's columns.
  Eigen::MatrixXd inverse_quadratic_form(const Eigen::SparseMatrix<double>& b,
                                         bool keep_unknowns = false) const;
  // A supernodal factor's Y = L^-1 P B is solved as a dense block up to this many entries (n x m)
  // and by sparse columns beyond (less memory). Tests lower it to reach the sparse path.
  static constexpr double kDefaultDenseHalfSolveEntries = 16e6;  // 128 MB
  void set_dense_half_solve_entries(double entries) { dense_half_solve_entries_ = entries; }

 private:
  // inverse_quadratic_form on a supernodal factor through the kept block of `unknowns` (B's rows,
  // ascending, distinct).
  Eigen::MatrixXd kept_block_quadratic_form(
      const Eigen::SparseMatrix<double, Eigen::ColMajor, int>& b,
      const std::vector<int>& unknowns) const;
  // The shift ladder, relative to the mean |diagonal|: 4x per rung from kFirstRung.
  static constexpr double kFirstRung = 1e-4, kLastRung = 1e6;
  static double mean_absolute_diagonal(const UpperCscView& a);
  // Factors A + sigma I into the primary factor for sigma = from, 4 from, 16 from, ... (from below
  // the first rung: A itself, then the first rung) and returns the first sigma that is positive
  // definite, or -1 if none below the last rung is. A scan from the bottom (from at most the first
  // rung) starts next to the rung the last scan ended on and walks down or up from there: the
  // same rung as climbing from the bottom (A + sigma I is definite for every sigma above the
  // lowest), in about two factorizations instead of one per rung (a contact step's compliance
  // climbed 8 rungs from zero on the grasp, 15 ms a factor).
  double lowest_definite_rung(const UpperCscView& a, double from);
  int last_rung_ = -1;  // the rung the last scan ended on (-1: sigma = 0 or none yet)
  // The shift ladder of a matrix: rung k is first 4^k (exactly: powers of 4 scale without
  // rounding), -1 is sigma = 0; rungs from `last` up are not tried.
  struct Ladder {
    double first, last;
    double rung(int k) const { return k < 0 ? 0.0 : std::ldexp(first, 2 * k); }
  };
  static Ladder ladder_of(const UpperCscView& a);
  enum class ScanMode {
    // The lowest definite rung, its factor left in the primary (lowest_definite_rung).
    kLowestFactor,
    // Definite mode after a shifted factorization (factorize): A itself is tried only when the
    // rung below the last is definite (an indefinite run of steps fails A every time), and the
    // lowest definite factor is not made again after a failed try below it (the margin's
    // factorization follows). A turning definite (-1) keeps last_rung_ for the next shift.
    kAfterShift,
  };
  static constexpr int kNoRung = -2;
  // The lowest rung >= `bottom` at which A + sigma I is definite, scanned from last_rung_ - 1
  // down or up; kNoRung if none below ladder.last.
  int scan_ladder(const UpperCscView& a, const Ladder& ladder, int bottom, ScanMode mode);
  bool last_shifted_ = false;  // the last factorize() made a shifted factor
  // info_ for a factorization of `a` about to start (the analysis time kept), and its end.
  void begin_info(const UpperCscView& a);
  void finish_info(std::chrono::steady_clock::time_point start);

  struct Impl;
  std::unique_ptr<Impl> impl_;
  FactorInfo info_;
  FactorForm form_;
  double predicted_nnz_ = 0, predicted_flops_ = 0;
  double dense_half_solve_entries_ = kDefaultDenseHalfSolveEntries;
};

// The factor as a preconditioner. CG may use it only when it is a Cholesky factor (then M is SPD).
class FactorPreconditioner final : public LinearPreconditioner {
 public:
  explicit FactorPreconditioner(const SparseCholesky& factor) : factor_(factor) {}
  void apply(const Eigen::VectorXd& r, Eigen::VectorXd& z) const override { factor_.solve(r, z); }
  bool symmetric_positive_definite() const override {
    return factor_.info().kind == FactorKind::kCholesky;
  }

 private:
  const SparseCholesky& factor_;
};

// Sets the BLAS thread count where the BLAS is OpenBLAS (looked up at run time, so any BLAS the
// system's alternatives point at still links); a no-op otherwise.
void set_blas_threads(int n);

// Stops the thread pool OpenBLAS starts when it is loaded, before main() and with no signal
// blocked; the next threaded BLAS call starts it again from the calling thread, with that
// thread's signal mask. A server that blocks SIGTERM and takes it with sigwait calls this after
// blocking: otherwise a SIGTERM may land on a pool thread and run whatever handler is installed
// (METIS, inside an analysis, installs one that longjmps: the server crashed with 139) or the
// default action (the server died without its graceful shutdown: 143).
void stop_blas_thread_pool();

}  // namespace softbody
