#include "engine/linalg/lapack_dense_solve.h"

#include <algorithm>
#include <cmath>

// LAPACK's Fortran entry points, declared here: liblapack-dev installs no C header (lapack.h
// comes with liblapacke-dev, a package for these two declarations); the signatures are LAPACK's
// documented ones, with gfortran's hidden length of the character argument last.
extern "C" {
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void dgetrs_(const char* trans, const int* n, const int* nrhs, const double* a, const int* lda,
             const int* ipiv, double* b, const int* ldb, int* info, std::size_t trans_length);
}

namespace softbody {

bool lapack_dense_solve(std::vector<double>& a, std::vector<double>& b, std::size_t n) {
  if (n == 0) return true;
  double largest = 0;
  for (const double x : a) largest = std::max(largest, std::abs(x));
  const double singular = 1e-13 * largest;
  // a is row-major, so LAPACK (column-major) sees its transpose: factor A^T = P L U and solve
  // with the transpose (trans 'T'), which is A x = b.
  const int size = static_cast<int>(n), one = 1;
  std::vector<int> pivots(n);
  int info = 0;
  dgetrf_(&size, &size, a.data(), &size, pivots.data(), &info);
  if (info != 0) return false;
  for (std::size_t i = 0; i < n; ++i)
    if (!(std::abs(a[i * n + i]) > singular)) return false;
  const char trans = 'T';
  dgetrs_(&trans, &size, &one, a.data(), &size, pivots.data(), b.data(), &size, &info, 1);
  return info == 0;
}

}  // namespace softbody
