#include "engine/solvers/sparse_cholesky.h"

#include "engine/solvers/unit_compliance.h"

#include <cblas.h>
#include <cholmod.h>
#include <dlfcn.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace softbody {
namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// LDL^T without pivoting is accepted while its pivots stay this far from zero, relative to the
// largest; below it the factor would amplify round-off more than a shifted Cholesky preconditions.
constexpr double kMinRelativePivot = 1e-12;

}  // namespace

namespace {

// Debian's CHOLMOD 5.12 opens an OpenMP region of four threads (CHOLMOD_OMP_NUM_THREADS, fixed
// at its build) per large supernode of a supernodal factorization, whatever the caller's thread
// count: 21,299 regions in scenes/grasp.json's 120 steps, each waking three workers on a two-core
// machine, which made its factorizations twice as slow (and a server's sessions would each wake
// four). With no active levels allowed, every region the calling thread opens runs on it alone
// (max-active-levels-var is a per-thread ICV since OpenMP 5.0). The loops it runs there write
// disjoint entries, so the factor's bits are the same either way.
class SerialOpenMpRegions {
 public:
  SerialOpenMpRegions() : levels_(omp_get_max_active_levels()) { omp_set_max_active_levels(0); }
  ~SerialOpenMpRegions() { omp_set_max_active_levels(levels_); }
  SerialOpenMpRegions(const SerialOpenMpRegions&) = delete;
  SerialOpenMpRegions& operator=(const SerialOpenMpRegions&) = delete;

 private:
  int levels_;
};

// inverse_quadratic_form's dense blocks for supernodal factors, kept between calls.
struct SupernodalBuffers {
  cholmod_dense* rhs = nullptr;   // P B
  cholmod_dense* half = nullptr;  // L^-1 P B
  cholmod_dense *work_y = nullptr, *work_e = nullptr;
  std::vector<int> inverse_permutation;
  void free(cholmod_common& common) {
    for (cholmod_dense** d : {&rhs, &half, &work_y, &work_e}) cholmod_free_dense(d, &common);
  }
};

// A supernodal factor's G = E^T F^-1 E for the unit columns E of a set of unknowns (ascending),
// solved as one block: W = B^T G B for any B over exactly those unknowns then costs no solve. A
// held grasp's rows are the same unknowns every step, in frames that may turn; its half-solves
// and their product were half of the step (scenes/grasp.json: 13 of 25 ms). Unlike the
// simplicial UnitCompliance it is kept for one set, not grown: a block half-solve's columns are
// not bit-for-bit those of smaller blocks, so G is a function of (factor, set) only when the set
// is solved whole, and a restored session, which starts without it, then computes the same bits.
struct UnknownBlockCompliance {
  std::vector<int> unknowns;
  Eigen::MatrixXd g;
  bool valid = false;
  void clear() {
    valid = false;
    unknowns.clear();
    g.resize(0, 0);
  }
};

}  // namespace

struct SparseCholesky::Impl {
  // mutable: CHOLMOD records status and reuses workspace even in a solve.
  mutable cholmod_common common{};
  cholmod_factor* primary = nullptr;  // simplicial LDL^T or supernodal LL^T, as CHOLMOD chooses
  cholmod_factor* ldlt = nullptr;     // simplicial LDL^T for an indefinite supernodal case
  cholmod_factor* current = nullptr;  // the factor solve() uses
  mutable cholmod_dense *x = nullptr, *y = nullptr, *e = nullptr;
  cholmod_sparse view{};                 // a header over the matrix's arrays (no copy)
  mutable HalfSolveColumns half_solves;  // inverse_quadratic_form's buffers, kept between calls
  // inverse_quadratic_form's single-unknown compliances, forgotten whenever the factor changes.
  mutable UnitCompliance unit_compliance;
  // A supernodal factor's compliance block between the unknowns of the last kept call, forgotten
  // whenever the factor changes (see inverse_quadratic_form).
  mutable UnknownBlockCompliance unknown_block;
  mutable SupernodalBuffers supernodal_buffers;

  Impl() {
    cholmod_start(&common);
    common.print = 0;
    common.error_handler = nullptr;
    common.final_ll = false;  // simplicial factors stay LDL^T
    // Try AMD and METIS, keep whichever predicts less fill; done once per pattern. (METIS's
    // GKlib swaps the process-wide SIGTERM handler while it runs: see stop_blas_thread_pool.)
    common.nmethods = 2;
    common.method[0].ordering = CHOLMOD_AMD;
    common.method[1].ordering = CHOLMOD_METIS;
    common.postorder = true;
  }
  ~Impl() {
    cholmod_free_factor(&primary, &common);
    cholmod_free_factor(&ldlt, &common);
    cholmod_free_dense(&x, &common);
    cholmod_free_dense(&y, &common);
    cholmod_free_dense(&e, &common);
    supernodal_buffers.free(common);
    cholmod_finish(&common);
  }

  cholmod_sparse* wrap(const UpperCscView& a) {
    view.nrow = view.ncol = static_cast<size_t>(a.size);
    view.nzmax = static_cast<size_t>(a.nonzeros);
    view.p = const_cast<int*>(a.column_starts);
    view.i = const_cast<int*>(a.rows);
    view.x = const_cast<double*>(a.values);
    view.stype = 1;  // upper triangle stored
    view.itype = CHOLMOD_INT;
    view.xtype = CHOLMOD_REAL;
    view.dtype = CHOLMOD_DOUBLE;
    view.sorted = true;
    view.packed = true;
    return &view;
  }

  cholmod_factor* analyze_as(const UpperCscView& a, int mode) {
    common.supernodal = mode;
    // One analysis at a time in the process: METIS keeps process-wide state (GKlib's signal
    // handlers) that concurrent calls from two sessions' threads would interleave.
    static std::mutex metis;
    std::lock_guard lock(metis);
    cholmod_factor* f = cholmod_analyze(wrap(a), &common);
    if (!f)
      throw std::runtime_error("CHOLMOD analysis failed (status " + std::to_string(common.status) +
                               ")");
    return f;
  }

  // Factorizes A + shift I into f; true when it succeeded to the last column.
  bool factorize_into(const UpperCscView& a, cholmod_factor* f, double shift) {
    double beta[2] = {shift, 0};
    common.status = CHOLMOD_OK;
    const SerialOpenMpRegions serial;
    cholmod_factorize_p(wrap(a), beta, nullptr, 0, f, &common);
    return common.status == CHOLMOD_OK && f->minor == f->n;
  }

  // Factorizes A + shift I into the primary factor; true when that is positive definite.
  bool factorize_definite_into(const UpperCscView& a, double shift) {
    return factorize_into(a, primary, shift) && (primary->is_super || pivots_positive(primary));
  }

  // Pivots of a simplicial LDL^T: all positive (the matrix was positive definite).
  static bool pivots_positive(const cholmod_factor* f) {
    const auto* p = static_cast<const int*>(f->p);
    const auto* v = static_cast<const double*>(f->x);
    for (size_t j = 0; j < f->n; ++j)
      if (!(v[p[j]] > 0)) return false;
    return true;
  }

  // Pivots of a simplicial LDL^T: finite and not tiny against the largest.
  static bool pivots_usable(const cholmod_factor* f) {
    const auto* p = static_cast<const int*>(f->p);
    const auto* v = static_cast<const double*>(f->x);
    double largest = 0, smallest = INFINITY;
    for (size_t j = 0; j < f->n; ++j) {
      const double d = std::abs(v[p[j]]);
      if (!std::isfinite(d)) return false;
      largest = std::max(largest, d);
      smallest = std::min(smallest, d);
    }
    return smallest > kMinRelativePivot * largest;
  }
};

SparseCholesky::SparseCholesky(FactorForm form) : impl_(std::make_unique<Impl>()), form_(form) {
  // Every factorization and solve runs on one BLAS thread. OpenBLAS splits a supernodal
  // factorization's kernels by its thread count, so its bits followed the engine's threads (the
  // grasp scene's cube ended 0.28 mm apart after 15 steps on one and on two threads) and, before
  // the first call here, the machine's core count; the engine's own loops give the same bits for
  // any thread count, and now the factor does too. It cost the bunny's factorization little on
  // two cores (within the noise of 210-320 ms); the server steps sessions on one thread anyway.
  // Solves gained from one thread before (OpenBLAS threads fought the OpenMP workers there).
  set_blas_threads(1);
}
SparseCholesky::~SparseCholesky() = default;

double SparseCholesky::analyze(const UpperCscView& a) {
  const auto start = Clock::now();
  cholmod_free_factor(&impl_->primary, &impl_->common);
  cholmod_free_factor(&impl_->ldlt, &impl_->common);
  impl_->current = nullptr;
  impl_->unit_compliance.clear();
  impl_->unknown_block.clear();
  // CHOLMOD_AUTO: simplicial when flops per nonzero of L are few (the knight: 1,662 unknowns,
  // factored in 1.0 ms simplicial against 1.6 ms supernodal), supernodal BLAS-3 otherwise.
  impl_->primary = impl_->analyze_as(a, form_ == FactorForm::kSimplicial   ? CHOLMOD_SIMPLICIAL
                                        : form_ == FactorForm::kSupernodal ? CHOLMOD_SUPERNODAL
                                                                           : CHOLMOD_AUTO);
  predicted_nnz_ = impl_->common.lnz;
  predicted_flops_ = impl_->common.fl;
  info_ = FactorInfo{};
  info_.analyze_ms = ms_since(start);
  return info_.analyze_ms;
}

FactorInfo SparseCholesky::factorize(const UpperCscView& a, bool definite_only) {
  if (!impl_->primary) analyze(a);
  const auto start = Clock::now();
  begin_info(a);
  cholmod_factor* primary = impl_->primary;
  if (definite_only && last_shifted_) {
    // A run of indefinite steps (seed 000's crush: 250 in a row) tried A itself first every time:
    // 3 factorizations a step instead of 4-5, the same factor.
    const Ladder ladder = ladder_of(a);
    const int k = scan_ladder(a, ladder, -1, ScanMode::kAfterShift);
    impl_->current = nullptr;
    if (k == -1) {
      info_.kind = FactorKind::kCholesky;  // A is definite: its factor is the one just made
      impl_->current = primary;
    } else if (k >= 0) {
      const double shift = ladder.rung(k + 1);  // the margin: see below
      if (impl_->factorize_definite_into(a, shift)) {
        info_.kind = FactorKind::kShiftedCholesky;
        info_.shift = shift;
        impl_->current = primary;
      }
    }
    last_shifted_ = info_.kind == FactorKind::kShiftedCholesky;
    finish_info(start);
    return info_;
  }
  // A supernodal factorization is LL^T and fails on a non-positive pivot; a simplicial one is
  // LDL^T here and always completes, so its pivots say whether the matrix was definite.
  const bool ok = impl_->factorize_into(a, primary, 0);
  if (ok && (primary->is_super || Impl::pivots_positive(primary))) {
    info_.kind = FactorKind::kCholesky;
    impl_->current = primary;
  } else if (!definite_only && !primary->is_super && ok && Impl::pivots_usable(primary)) {
    info_.kind = FactorKind::kLdlt;
    impl_->current = primary;
  } else {
    // Indefinite. Unless only definite factors are wanted: LDL^T (no pivoting), simplicial
    // because CHOLMOD's supernodal factorization is LL^T only.
    if (!definite_only && primary->is_super && !impl_->ldlt)
      impl_->ldlt = impl_->analyze_as(a, CHOLMOD_SIMPLICIAL);
    if (!definite_only && primary->is_super && impl_->factorize_into(a, impl_->ldlt, 0) &&
        Impl::pivots_usable(impl_->ldlt)) {
      info_.kind = FactorKind::kLdlt;
      impl_->current = impl_->ldlt;
    } else {
      // A definite matrix near A. The ladder starts at 1e-4 of the mean diagonal and grows
      // fourfold until the factorization is positive definite; the shift used is the next rung,
      // so sigma lies in (4, 16] |lambda_min| and the worst mode ends at least 3 |lambda_min|
      // above zero. The first rung alone leaves A + sigma I nearly singular: on seed 000's crush
      // and the default scene it turned steps into speed spikes and made trajectories chaotic
      // (1e-9 perturbations grew to centimetres); with the margin they are not (bench/RESULTS.md).
      impl_->current = nullptr;
      const Ladder ladder = ladder_of(a);
      const int lowest = scan_ladder(a, ladder, 0, ScanMode::kLowestFactor);
      const double shift = ladder.rung(lowest + 1);  // the margin: 4x the lowest definite rung
      if (lowest != kNoRung && impl_->factorize_definite_into(a, shift)) {
        info_.kind = FactorKind::kShiftedCholesky;
        info_.shift = shift;
        impl_->current = primary;
      }
    }
  }
  if (info_.kind == FactorKind::kLdlt) {
    info_.nnz_factor = static_cast<long>(impl_->common.lnz);
    info_.flops = impl_->common.fl;
  }
  last_shifted_ = info_.kind == FactorKind::kShiftedCholesky;
  finish_info(start);
  return info_;
}

SparseCholesky::Ladder SparseCholesky::ladder_of(const UpperCscView& a) {
  const double mean_diagonal = mean_absolute_diagonal(a);
  return {kFirstRung * mean_diagonal, kLastRung * mean_diagonal};
}

int SparseCholesky::scan_ladder(const UpperCscView& a, const Ladder& ladder, int bottom,
                                ScanMode mode) {
  const auto definite = [&](int k) { return impl_->factorize_definite_into(a, ladder.rung(k)); };
  int k = std::max(bottom, last_rung_ - 1);
  if (definite(k)) {
    if (mode == ScanMode::kAfterShift) {
      // A itself may have turned definite; else down while definite, leaving a failed try's
      // factor behind: the caller factors the margin rung next.
      if (k >= 0 && definite(-1)) return -1;  // last_rung_ kept for the next indefinite step
      while (k > 0 && definite(k - 1)) --k;
    } else {
      // Down while definite; a failed try leaves its factor behind, so the lowest is redone.
      while (k > bottom) {
        if (!definite(k - 1)) {
          definite(k);
          break;
        }
        --k;
      }
    }
  } else {
    do ++k;
    while (ladder.rung(k) < ladder.last && !definite(k));
    if (!(ladder.rung(k) < ladder.last)) return kNoRung;
  }
  if (k >= 0 || mode == ScanMode::kLowestFactor) last_rung_ = k;
  return k;
}

FactorInfo SparseCholesky::factorize_definite(const UpperCscView& a, double from) {
  if (!impl_->primary) analyze(a);
  const auto start = Clock::now();
  begin_info(a);
  impl_->current = nullptr;
  const double shift = lowest_definite_rung(a, from);
  if (shift >= 0) {
    info_.kind = shift == 0 ? FactorKind::kCholesky : FactorKind::kShiftedCholesky;
    info_.shift = shift;
    impl_->current = impl_->primary;
  }
  finish_info(start);
  return info_;
}

double SparseCholesky::lowest_definite_rung(const UpperCscView& a, double from) {
  const Ladder ladder = ladder_of(a);
  if (from <= ladder.first) {
    // From the bottom: start a rung below the last scan's (with none, at the bottom itself).
    const int k = scan_ladder(a, ladder, from < ladder.first ? -1 : 0, ScanMode::kLowestFactor);
    return k == kNoRung ? -1 : ladder.rung(k);
  }
  // From an arbitrary `from` (Newton's, a rung below its last shift): up in fourfold steps; the
  // nearest rung of this matrix's ladder is remembered for the next scan from the bottom.
  for (double shift = from; shift < ladder.last; shift *= 4) {
    if (impl_->factorize_definite_into(a, shift)) {
      last_rung_ = static_cast<int>(std::lround(std::log2(shift / ladder.first) / 2));
      return shift;
    }
  }
  return -1;
}

double SparseCholesky::mean_absolute_diagonal(const UpperCscView& a) {
  double sum = 0;
  const int* col = a.column_starts;
  for (Eigen::Index j = 0; j < a.size; ++j) sum += std::abs(a.values[col[j + 1] - 1]);
  return sum / static_cast<double>(std::max<Eigen::Index>(a.size, 1));
}

void SparseCholesky::begin_info(const UpperCscView& a) {
  impl_->unit_compliance.clear();  // every factorization passes here
  impl_->unknown_block.clear();
  const double analyze_ms = info_.analyze_ms;
  info_ = FactorInfo{};
  info_.analyze_ms = analyze_ms;
  info_.nnz_matrix = a.nonzeros;
  info_.nnz_factor = static_cast<long>(predicted_nnz_);
  info_.flops = predicted_flops_;
  info_.supernodal = impl_->primary->is_super;
}

void SparseCholesky::finish_info(Clock::time_point start) {
  info_.fill = info_.nnz_matrix > 0
                   ? static_cast<double>(info_.nnz_factor) / static_cast<double>(info_.nnz_matrix)
                   : 0;
  info_.factor_ms = ms_since(start);
}

void SparseCholesky::solve(const Eigen::VectorXd& b, Eigen::VectorXd& x) const {
  if (!impl_->current) throw std::logic_error("SparseCholesky::solve before a factorization");
  cholmod_dense rhs{};
  rhs.nrow = static_cast<size_t>(b.size());
  rhs.ncol = 1;
  rhs.nzmax = rhs.d = rhs.nrow;
  rhs.x = const_cast<double*>(b.data());
  rhs.xtype = CHOLMOD_REAL;
  rhs.dtype = CHOLMOD_DOUBLE;
  if (!cholmod_solve2(CHOLMOD_A, impl_->current, &rhs, nullptr, &impl_->x, nullptr, &impl_->y,
                      &impl_->e, &impl_->common))
    throw std::runtime_error("CHOLMOD solve failed");
  x = Eigen::Map<const Eigen::VectorXd>(static_cast<const double*>(impl_->x->x), b.size());
}

void SparseCholesky::solve(const Eigen::MatrixXd& b, Eigen::MatrixXd& x) const {
  if (!impl_->current) throw std::logic_error("SparseCholesky::solve before a factorization");
  cholmod_dense rhs{};
  rhs.nrow = static_cast<size_t>(b.rows());
  rhs.ncol = static_cast<size_t>(b.cols());
  rhs.d = rhs.nrow;
  rhs.nzmax = rhs.nrow * rhs.ncol;
  rhs.x = const_cast<double*>(b.data());  // Eigen's default is column-major, as CHOLMOD's
  rhs.xtype = CHOLMOD_REAL;
  rhs.dtype = CHOLMOD_DOUBLE;
  if (!cholmod_solve2(CHOLMOD_A, impl_->current, &rhs, nullptr, &impl_->x, nullptr, &impl_->y,
                      &impl_->e, &impl_->common))
    throw std::runtime_error("CHOLMOD solve failed");
  x = Eigen::Map<const Eigen::MatrixXd>(static_cast<const double*>(impl_->x->x), b.rows(),
                                        b.cols());
}

namespace {

// A CHOLMOD result as an Eigen matrix (copied), packed or not.
Eigen::SparseMatrix<double> to_eigen(const cholmod_sparse& s) {
  std::vector<Eigen::Triplet<double>> entries;
  const auto* p = static_cast<const int*>(s.p);
  const auto* nz = static_cast<const int*>(s.nz);
  const auto* i = static_cast<const int*>(s.i);
  const auto* x = static_cast<const double*>(s.x);
  for (size_t j = 0; j < s.ncol; ++j) {
    const int end = s.packed ? p[j + 1] : p[j] + nz[j];
    for (int k = p[j]; k < end; ++k) entries.emplace_back(i[k], static_cast<int>(j), x[k]);
  }
  Eigen::SparseMatrix<double> out(static_cast<Eigen::Index>(s.nrow),
                                  static_cast<Eigen::Index>(s.ncol));
  out.setFromTriplets(entries.begin(), entries.end());
  return out;
}

// position[i]: where row i of B goes in P B (x = P b is x_k = b_Perm[k]).
void inverse_permutation(const cholmod_factor* l, std::vector<int>& position) {
  const auto n = static_cast<int>(l->n);
  const int* perm = l->ordering == CHOLMOD_NATURAL ? nullptr : static_cast<const int*>(l->Perm);
  position.resize(static_cast<size_t>(n));
  for (int k = 0; k < n; ++k) position[static_cast<size_t>(perm ? perm[k] : k)] = k;
}

// Y = L^-1 P B and D^-1 Y for a simplicial factor, as compressed columns (`half`: Y's values,
// `scaled`: D^-1 Y's, on the same rows), one column of B at a time, each solve limited to the rows
// its right-hand side reaches in L's elimination tree (cholmod_solve2 with a sparse Bset: CHOLMOD
// walks the reach instead of all n columns). For the knight's factor (1,662 unknowns) a grasp's
// column reaches ~100 rows, where cholmod_spsolve solves with all of them (it takes the columns
// as dense blocks). CHOLMOD offers Bset for simplicial factors only. The columns are written in
// place (no triplets to sort and no growing buffers: those cost more than the solves here).
void half_solves_by_reach(cholmod_factor* l, cholmod_common& common,
                          const Eigen::SparseMatrix<double, Eigen::ColMajor, int>& b,
                          HalfSolveColumns& out) {
  const auto n = static_cast<int>(l->n);
  std::vector<int> inverse;
  inverse_permutation(l, inverse);
  const auto* lp = static_cast<const int*>(l->p);
  const auto* lx = static_cast<const double*>(l->x);
  cholmod_dense* rhs = cholmod_zeros(static_cast<size_t>(n), 1, CHOLMOD_REAL, &common);
  cholmod_sparse* set = cholmod_allocate_sparse(static_cast<size_t>(n), 1, static_cast<size_t>(n),
                                                false, true, 0, CHOLMOD_PATTERN, &common);
  cholmod_dense *x = nullptr, *work_y = nullptr, *work_e = nullptr;
  cholmod_sparse* reach = nullptr;
  const auto free_all = [&] {
    cholmod_free_dense(&rhs, &common);
    cholmod_free_sparse(&set, &common);
    cholmod_free_dense(&x, &common);
    cholmod_free_dense(&work_y, &common);
    cholmod_free_dense(&work_e, &common);
    cholmod_free_sparse(&reach, &common);
  };
  if (!rhs || !set) {
    free_all();
    throw std::runtime_error("CHOLMOD sparse half-solve: out of memory");
  }
  auto* rhs_x = static_cast<double*>(rhs->x);
  auto* set_p = static_cast<int*>(set->p);
  auto* set_i = static_cast<int*>(set->i);
  out.outer.assign(1, 0);
  out.rows.clear();
  out.half.clear();
  out.scaled.clear();
  for (int j = 0; j < b.outerSize(); ++j) {
    int count = 0;
    for (Eigen::SparseMatrix<double, Eigen::ColMajor, int>::InnerIterator it(b, j); it; ++it) {
      const int row = inverse[static_cast<size_t>(it.row())];  // (P b)[row] = b[perm[row]]
      rhs_x[row] = it.value();
      set_i[count++] = row;
    }
    if (count > 0) {
      set_p[0] = 0;
      set_p[1] = count;
      const bool ok = cholmod_solve2(CHOLMOD_L, l, rhs, set, &x, &reach, &work_y, &work_e, &common);
      for (int k = 0; k < count; ++k) rhs_x[set_i[k]] = 0;
      if (!ok) {
        free_all();
        throw std::runtime_error("CHOLMOD sparse half-solve failed");
      }
      const auto* xx = static_cast<const double*>(x->x);
      const auto* reach_i = static_cast<const int*>(reach->i);
      const int reached = static_cast<const int*>(reach->p)[1];
      for (int k = 0; k < reached; ++k) {
        const int row = reach_i[k];
        const double value = xx[row];
        if (value == 0) continue;
        out.rows.push_back(row);
        out.half.push_back(value);
        // LDL^T keeps D on L's diagonal; LL^T has none (D = I).
        out.scaled.push_back(l->is_ll ? value : value / lx[lp[row]]);
      }
    }
    out.outer.push_back(static_cast<int>(out.rows.size()));
  }
  free_all();
}

// W = Y^T Y with Y = L^-1 P B for a supernodal (LL^T) factor. Y's columns fill in below their
// first rows (a supernodal factor is chosen where L is dense), so they are solved as one dense
// block (CHOLMOD's supernodal solve runs BLAS-3 kernels over it) and W is one symmetric rank-n
// product (BLAS dsyrk). The sparse path this replaced (cholmod_spsolve, triplets, a sparse product)
// took 25-90 ms a step on scenes/grasp.json's cube (300-440 rows of 1,029 unknowns). The dense
// blocks are kept between calls (`buffers`): fresh ones cost more in page faults than the solve.
// Above `dense_entries` (Y is n x m doubles) the sparse path's memory is the smaller.
Eigen::MatrixXd supernodal_inverse_quadratic_form(
    cholmod_factor* l, cholmod_common& common,
    const Eigen::SparseMatrix<double, Eigen::ColMajor, int>& b, double dense_entries,
    SupernodalBuffers& buffers) {
  const auto n = static_cast<Eigen::Index>(l->n), m = b.cols();
  if (static_cast<double>(n) * static_cast<double>(m) <= dense_entries) {
    // P B written into the kept right-hand side block.
    std::vector<int>& position = buffers.inverse_permutation;
    inverse_permutation(l, position);
    if (!cholmod_ensure_dense(&buffers.rhs, static_cast<size_t>(n), static_cast<size_t>(m),
                              static_cast<size_t>(n), CHOLMOD_REAL, &common))
      throw std::runtime_error("CHOLMOD dense allocation failed");
    auto* x = static_cast<double*>(buffers.rhs->x);
    std::fill(x, x + n * m, 0.0);
    for (Eigen::Index j = 0; j < m; ++j)
      for (Eigen::SparseMatrix<double, Eigen::ColMajor, int>::InnerIterator it(b, j); it; ++it)
        x[j * n + position[static_cast<size_t>(it.row())]] = it.value();
    if (!cholmod_solve2(CHOLMOD_L, l, buffers.rhs, nullptr, &buffers.half, nullptr, &buffers.work_y,
                        &buffers.work_e, &common))
      throw std::runtime_error("CHOLMOD dense half-solve failed");
    Eigen::MatrixXd w(m, m);
    const auto rows = static_cast<int>(n), cols = static_cast<int>(m);
    const auto leading = static_cast<int>(buffers.half->d);
    cblas_dsyrk(CblasColMajor, CblasLower, CblasTrans, cols, rows, 1.0,
                static_cast<const double*>(buffers.half->x), leading, 0.0, w.data(), cols);
    for (Eigen::Index j = 1; j < m; ++j)  // dsyrk wrote the lower triangle
      for (Eigen::Index i = 0; i < j; ++i) w(i, j) = w(j, i);
    return w;
  }
  cholmod_sparse view{};
  view.nrow = static_cast<size_t>(n);
  view.ncol = static_cast<size_t>(m);
  view.nzmax = static_cast<size_t>(b.nonZeros());
  view.p = const_cast<int*>(b.outerIndexPtr());
  view.i = const_cast<int*>(b.innerIndexPtr());
  view.x = const_cast<double*>(b.valuePtr());
  view.stype = 0;
  view.itype = CHOLMOD_INT;
  view.xtype = CHOLMOD_REAL;
  view.dtype = CHOLMOD_DOUBLE;
  view.sorted = true;
  view.packed = true;
  cholmod_sparse* permuted = cholmod_spsolve(CHOLMOD_P, l, &view, &common);
  cholmod_sparse* half = permuted ? cholmod_spsolve(CHOLMOD_L, l, permuted, &common) : nullptr;
  cholmod_free_sparse(&permuted, &common);
  if (!half) throw std::runtime_error("CHOLMOD sparse half-solve failed");
  const Eigen::SparseMatrix<double> y = to_eigen(*half);  // D = I: Y^T D^-1 Y = Y^T Y
  cholmod_free_sparse(&half, &common);
  return Eigen::MatrixXd(y.transpose() * y);
}

}  // namespace

Eigen::MatrixXd SparseCholesky::inverse_quadratic_form(const Eigen::SparseMatrix<double>& b,
                                                       bool keep_unknowns) const {
  if (!impl_->current)
    throw std::logic_error("SparseCholesky::inverse_quadratic_form before a factorization");
  Eigen::SparseMatrix<double, Eigen::ColMajor, int> compressed = b;
  compressed.makeCompressed();
  if (!impl_->current->is_super) {
    const auto solve_by_reach = [&](const UnitCompliance::ColumnMatrix& columns,
                                    HalfSolveColumns& out) {
      half_solves_by_reach(impl_->current, impl_->common, columns, out);
    };
    if (keep_unknowns) return impl_->unit_compliance.quadratic_form(compressed, solve_by_reach);
    HalfSolveColumns& c = impl_->half_solves;
    solve_by_reach(compressed, c);
    using Columns = Eigen::Map<const Eigen::SparseMatrix<double, Eigen::ColMajor, int>>;
    const auto n = static_cast<Eigen::Index>(impl_->current->n);
    const auto nonzeros = static_cast<Eigen::Index>(c.rows.size());
    const Columns y(n, compressed.cols(), nonzeros, c.outer.data(), c.rows.data(), c.half.data());
    const Columns z(n, compressed.cols(), nonzeros, c.outer.data(), c.rows.data(), c.scaled.data());
    return Eigen::MatrixXd(y.transpose() * z);
  }
  if (keep_unknowns) {
    const std::vector<int> unknowns = distinct_unknowns(compressed);
    if (unknowns.size() <= static_cast<size_t>(UnitCompliance::kMaxUnknowns))
      return kept_block_quadratic_form(compressed, unknowns);
  }
  return supernodal_inverse_quadratic_form(impl_->current, impl_->common, compressed,
                                           dense_half_solve_entries_, impl_->supernodal_buffers);
}

Eigen::MatrixXd SparseCholesky::kept_block_quadratic_form(
    const Eigen::SparseMatrix<double, Eigen::ColMajor, int>& b,
    const std::vector<int>& unknowns) const {
  UnknownBlockCompliance& kept = impl_->unknown_block;
  const auto k = static_cast<Eigen::Index>(unknowns.size());
  if (!kept.valid || kept.unknowns != unknowns) {
    Eigen::SparseMatrix<double, Eigen::ColMajor, int> units(b.rows(), k);
    units.reserve(Eigen::VectorXi::Ones(k));
    for (Eigen::Index j = 0; j < k; ++j) units.insert(unknowns[static_cast<size_t>(j)], j) = 1.0;
    units.makeCompressed();
    kept.g = supernodal_inverse_quadratic_form(
        impl_->current, impl_->common, units, dense_half_solve_entries_, impl_->supernodal_buffers);
    kept.unknowns = unknowns;
    kept.valid = true;
  }
  // B's rows renumbered to the block's: W = B_s^T G B_s.
  Eigen::SparseMatrix<double, Eigen::ColMajor, int> on_block(k, b.cols());
  std::vector<Eigen::Triplet<double>> entries;
  entries.reserve(static_cast<size_t>(b.nonZeros()));
  for (Eigen::Index j = 0; j < b.cols(); ++j)
    for (Eigen::SparseMatrix<double, Eigen::ColMajor, int>::InnerIterator it(b, j); it; ++it) {
      const auto at = std::lower_bound(unknowns.begin(), unknowns.end(), it.row());
      entries.emplace_back(static_cast<int>(at - unknowns.begin()), static_cast<int>(j),
                           it.value());
    }
  on_block.setFromTriplets(entries.begin(), entries.end());
  const Eigen::MatrixXd g_b = kept.g * on_block;
  Eigen::MatrixXd w = on_block.transpose() * g_b;
  // Symmetric to the bit, as dsyrk's W was: the lower triangle mirrored.
  for (Eigen::Index j = 1; j < w.cols(); ++j)
    for (Eigen::Index i = 0; i < j; ++i) w(i, j) = w(j, i);
  return w;
}

void stop_blas_thread_pool() {
  using Shutdown = int (*)();
  if (const auto shutdown =
          reinterpret_cast<Shutdown>(dlsym(RTLD_DEFAULT, "blas_thread_shutdown_")))
    shutdown();
}

void set_blas_threads(int n) {
  using SetThreads = void (*)(int);
  static const auto set =
      reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
  static std::atomic<int> current{-1};
  if (set && n > 0 && current.exchange(n) != n) set(n);
}

}  // namespace softbody
