// The compliance between single unknowns, g_ij = e_i^T F^-1 e_j, for the unknowns constraint rows
// touch, kept while the factor F stays: the Delassus operator W = B^T F^-1 B of any rows B over
// those unknowns is then sum_pq B_pk B_ql g_pq, without a solve. A held grasp's contacts lie on the
// same faces every step while their barycentric weights drift, so its B is never the same twice
// but its unknowns are; their half-solves were half of the contact stage (bench/RESULTS.md).
//
// Every g_ij is a fixed function of the factor and (i, j): each unknown's half-solve y_i = L^-1 P
// e_i is solved alone, its rows kept in ascending order, and g_ij (i < j) is the sum over their
// common rows in that order of y_i[r] (D^-1 y_j)[r]. So W does not depend on which unknowns were
// kept before, or in which order: a restored session (which starts with none) gets the same bits.
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <functional>
#include <vector>

namespace softbody {

// Half-solves of sparse right-hand sides as compressed columns: Y = L^-1 P B (`half`) and
// D^-1 Y (`scaled`), on the same rows.
struct HalfSolveColumns {
  std::vector<int> outer, rows;
  std::vector<double> half, scaled;
};

// The rows of b that hold an entry (the unknowns its columns touch), ascending, each once.
std::vector<int> distinct_unknowns(const Eigen::SparseMatrix<double, Eigen::ColMajor, int>& b);

class UnitCompliance {
 public:
  using ColumnMatrix = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;
  // Solves the unit columns of the given unknowns (B = [e_i ...]) into `out`.
  using HalfSolve = std::function<void(const ColumnMatrix& units, HalfSolveColumns& out)>;
  // Beyond this many kept unknowns (a dense table of 8 bytes per pair) the table starts over.
  static constexpr int kMaxUnknowns = 2048;

  // Forgets every entry (the factor changed).
  void clear();
  // W = B^T F^-1 B, solving only for B's rows (unknowns) not kept yet.
  Eigen::MatrixXd quadratic_form(const ColumnMatrix& b, const HalfSolve& half_solve);
  int kept() const { return static_cast<int>(unknowns_.size()); }

 private:
  void add(const std::vector<int>& unknowns, const HalfSolve& half_solve);

  std::vector<int> slot_;      // per unknown of F: its slot, or -1
  std::vector<int> unknowns_;  // per slot: the unknown
  // Per slot: its half-solve, rows ascending.
  std::vector<std::vector<int>> rows_;
  std::vector<std::vector<double>> half_, scaled_;
  Eigen::MatrixXd table_;                          // g between slots (the kept block of F^-1)
  std::vector<double> dense_half_, dense_scaled_;  // one slot scattered (scratch)
};

}  // namespace softbody
