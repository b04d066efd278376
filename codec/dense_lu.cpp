#include "codec/dense_lu.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <utility>

namespace softbody::codec {

using std::size_t;

// Solves the dense n x n system a x = b in place (b becomes x) by LU with partial pivoting,
// right-looking and blocked: a panel of kBlock columns is factored, then the rest of the matrix
// is updated by the panel's kBlock rank-one terms in one pass over each row, so the trailing rows
// stream through the cache once per panel instead of once per column. Written here: codec/ is
// standard library only, for the WebAssembly build. False if singular (see `singular`).
bool solve_dense(std::vector<double>& a, std::vector<double>& b, std::size_t n) {
  constexpr size_t kBlock = 32;
  // A pivot this small against the matrix's largest entry is round-off of an exact zero (rows
  // made dependent by contacts sharing a face): singular, so the caller regularizes. Testing for
  // an exact zero instead made the outcome depend on the order of the arithmetic.
  double largest = 0;
  for (const double x : a) largest = std::max(largest, std::abs(x));
  const double singular = 1e-13 * largest;
  for (size_t k0 = 0; k0 < n; k0 += kBlock) {
    const size_t k1 = std::min(n, k0 + kBlock);
    // The panel, columns [k0, k1): unblocked; rows are swapped whole (L's columns too).
    for (size_t col = k0; col < k1; ++col) {
      size_t pivot = col;
      for (size_t r = col + 1; r < n; ++r)
        if (std::abs(a[r * n + col]) > std::abs(a[pivot * n + col])) pivot = r;
      if (!(std::abs(a[pivot * n + col]) > singular)) return false;
      if (pivot != col) {
        std::swap_ranges(a.begin() + static_cast<std::ptrdiff_t>(col * n),
                         a.begin() + static_cast<std::ptrdiff_t>(col * n + n),
                         a.begin() + static_cast<std::ptrdiff_t>(pivot * n));
        std::swap(b[col], b[pivot]);
      }
      const double inverse_pivot = 1 / a[col * n + col];
      const double* pivot_row = &a[col * n];
      for (size_t r = col + 1; r < n; ++r) {
        double* row = &a[r * n];
        const double l = row[col] * inverse_pivot;
        row[col] = l;
        for (size_t c = col + 1; c < k1; ++c) row[c] -= l * pivot_row[c];
      }
    }
    if (k1 == n) break;
    // U's rows of the panel right of it: L11^-1 A12 (L11 unit lower triangular).
    for (size_t i = k0 + 1; i < k1; ++i) {
      double* row = &a[i * n];
      for (size_t k = k0; k < i; ++k) {
        const double l = row[k];
        const double* u = &a[k * n];
        for (size_t c = k1; c < n; ++c) row[c] -= l * u[c];
      }
    }
    // The trailing matrix: A22 -= L21 U12.
    for (size_t i = k1; i < n; ++i) {
      double* row = &a[i * n];
      for (size_t k = k0; k < k1; ++k) {
        const double l = row[k];
        if (l == 0) continue;
        const double* u = &a[k * n];
        for (size_t c = k1; c < n; ++c) row[c] -= l * u[c];
      }
    }
  }
  // L y = P b, then U x = y.
  for (size_t i = 1; i < n; ++i) {
    double s = b[i];
    for (size_t k = 0; k < i; ++k) s -= a[i * n + k] * b[k];
    b[i] = s;
  }
  for (size_t i = n; i-- > 0;) {
    double s = b[i];
    for (size_t c = i + 1; c < n; ++c) s -= a[i * n + c] * b[c];
    b[i] = s / a[i * n + i];
  }
  return true;
}

// solve_dense, and when the system is singular, the same system with `shift` added to its
// diagonal. More contacts than a face has vertices make rows of W dependent (their points are
// combinations of the same vertices): a small compliance then picks one of the equivalent force
// distributions instead of failing. False if even that is singular.
bool solve_dense_or_regularized(std::vector<double>& a, std::vector<double>& b, std::size_t n,
                                double shift, DenseSolve solve) {
  const std::vector<double> a_kept = a, b_kept = b;
  if (solve(a, b, n)) return true;
  a = a_kept;
  b = b_kept;
  for (std::size_t i = 0; i < n; ++i) a[i * n + i] += shift;
  return solve(a, b, n);
}

}  // namespace softbody::codec
