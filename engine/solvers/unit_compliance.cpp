#include "engine/solvers/unit_compliance.h"

#include <algorithm>
#include <numeric>

namespace softbody {

std::vector<int> distinct_unknowns(const Eigen::SparseMatrix<double, Eigen::ColMajor, int>& b) {
  std::vector<int> rows(b.innerIndexPtr(), b.innerIndexPtr() + b.nonZeros());
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  return rows;
}

void UnitCompliance::clear() {
  for (int unknown : unknowns_) slot_[static_cast<size_t>(unknown)] = -1;
  unknowns_.clear();
  rows_.clear();
  half_.clear();
  scaled_.clear();
  table_.resize(0, 0);
}

void UnitCompliance::add(const std::vector<int>& unknowns, const HalfSolve& half_solve) {
  const auto n = static_cast<int>(slot_.size());
  ColumnMatrix units(n, static_cast<Eigen::Index>(unknowns.size()));
  units.reserve(Eigen::VectorXi::Ones(static_cast<Eigen::Index>(unknowns.size())));
  for (size_t k = 0; k < unknowns.size(); ++k)
    units.insert(unknowns[k], static_cast<Eigen::Index>(k)) = 1.0;
  units.makeCompressed();
  HalfSolveColumns solved;
  half_solve(units, solved);

  const size_t first = unknowns_.size();
  std::vector<int> order;
  for (size_t k = 0; k < unknowns.size(); ++k) {
    const auto begin = static_cast<size_t>(solved.outer[k]),
               end = static_cast<size_t>(solved.outer[k + 1]);
    order.resize(end - begin);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int a, int b) {
      return solved.rows[begin + static_cast<size_t>(a)] <
             solved.rows[begin + static_cast<size_t>(b)];
    });
    std::vector<int> rows(order.size());
    std::vector<double> half(order.size()), scaled(order.size());
    for (size_t r = 0; r < order.size(); ++r) {
      const size_t from = begin + static_cast<size_t>(order[r]);
      rows[r] = solved.rows[from];
      half[r] = solved.half[from];
      scaled[r] = solved.scaled[from];
    }
    slot_[static_cast<size_t>(unknowns[k])] = static_cast<int>(unknowns_.size());
    unknowns_.push_back(unknowns[k]);
    rows_.push_back(std::move(rows));
    half_.push_back(std::move(half));
    scaled_.push_back(std::move(scaled));
  }

  const auto slots = static_cast<Eigen::Index>(unknowns_.size());
  Eigen::MatrixXd grown(slots, slots);
  const auto old = static_cast<Eigen::Index>(first);
  grown.topLeftCorner(old, old) = table_;
  table_ = std::move(grown);
  // Zero between uses (each slot's rows are reset after it): sized once per unknown count.
  if (dense_half_.size() != static_cast<size_t>(n)) {
    dense_half_.assign(static_cast<size_t>(n), 0.0);
    dense_scaled_.assign(static_cast<size_t>(n), 0.0);
  }
  for (size_t a = first; a < unknowns_.size(); ++a) {
    for (size_t r = 0; r < rows_[a].size(); ++r) {
      dense_half_[static_cast<size_t>(rows_[a][r])] = half_[a][r];
      dense_scaled_[static_cast<size_t>(rows_[a][r])] = scaled_[a][r];
    }
    // g_ij (i < j) = sum over common rows, ascending, of y_i[r] (D^-1 y_j)[r]; the rows of b
    // alone visit the same nonzero terms in the same order (a row b lacks adds an exact zero).
    for (size_t b = 0; b <= a; ++b) {
      const bool a_first = unknowns_[a] < unknowns_[b];
      const std::vector<double>& other = a_first ? scaled_[b] : half_[b];
      const std::vector<double>& mine = a_first ? dense_half_ : dense_scaled_;
      double sum = 0;
      for (size_t r = 0; r < rows_[b].size(); ++r)
        sum += mine[static_cast<size_t>(rows_[b][r])] * other[r];
      table_(static_cast<Eigen::Index>(a), static_cast<Eigen::Index>(b)) = sum;
      table_(static_cast<Eigen::Index>(b), static_cast<Eigen::Index>(a)) = sum;
    }
    for (int row : rows_[a]) {
      dense_half_[static_cast<size_t>(row)] = 0;
      dense_scaled_[static_cast<size_t>(row)] = 0;
    }
  }
}

Eigen::MatrixXd UnitCompliance::quadratic_form(const ColumnMatrix& b, const HalfSolve& half_solve) {
  if (slot_.size() != static_cast<size_t>(b.rows())) {
    clear();
    slot_.assign(static_cast<size_t>(b.rows()), -1);
  }
  std::vector<int> needed = distinct_unknowns(b);
  std::vector<int> missing;
  for (int unknown : needed)
    if (slot_[static_cast<size_t>(unknown)] < 0) missing.push_back(unknown);
  if (unknowns_.size() + missing.size() > static_cast<size_t>(kMaxUnknowns)) {
    clear();
    missing = std::move(needed);
  }
  if (!missing.empty()) add(missing, half_solve);
  // W_kl = sum_p sum_q B_pk B_ql g_pq, in B's own order.
  const Eigen::Index m = b.cols();
  Eigen::MatrixXd w(m, m);
  const int* outer = b.outerIndexPtr();
  const int* inner = b.innerIndexPtr();
  const double* value = b.valuePtr();
  for (Eigen::Index k = 0; k < m; ++k)
    for (Eigen::Index l = 0; l <= k; ++l) {
      double sum = 0;
      for (int p = outer[k]; p < outer[k + 1]; ++p) {
        const Eigen::Index sp = slot_[static_cast<size_t>(inner[p])];
        double row = 0;
        for (int q = outer[l]; q < outer[l + 1]; ++q)
          row += value[q] * table_(sp, slot_[static_cast<size_t>(inner[q])]);
        sum += value[p] * row;
      }
      w(k, l) = sum;
      w(l, k) = sum;
    }
  return w;
}

}  // namespace softbody
