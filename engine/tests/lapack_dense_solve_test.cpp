// LAPACK's dense solve for the contact solve (engine/linalg/lapack_dense_solve.h) against the
// codec's own (codec/dense_lu.h): the same answers and the same systems called singular.
#include "engine/linalg/lapack_dense_solve.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "codec/dense_lu.h"

namespace softbody {
namespace {

// A random n x n row-major system; `dependent` copies row 0 into the last row (a contact's row
// repeated by another on the same vertex).
std::vector<double> random_matrix(std::size_t n, unsigned seed, bool dependent) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> a(n * n);
  for (double& x : a) x = u(random);
  if (dependent)
    for (std::size_t c = 0; c < n; ++c) a[(n - 1) * n + c] = a[c];
  return a;
}

TEST(LapackDenseSolve, SolvesTheRowMajorSystemAsTheCodecsLuDoes) {
  for (const std::size_t n : {1u, 7u, 64u, 300u}) {
    const std::vector<double> a = random_matrix(n, 3, false);
    std::vector<double> b(n);
    for (std::size_t i = 0; i < n; ++i) b[i] = std::sin(static_cast<double>(i));
    std::vector<double> a1 = a, x1 = b, a2 = a, x2 = b;
    ASSERT_TRUE(lapack_dense_solve(a1, x1, n)) << n;
    ASSERT_TRUE(codec::solve_dense(a2, x2, n)) << n;
    double residual = 0, scale = 0;
    for (std::size_t i = 0; i < n; ++i) {
      double sum = -b[i];
      for (std::size_t c = 0; c < n; ++c) sum += a[i * n + c] * x1[c];
      residual = std::max(residual, std::abs(sum));
      scale = std::max(scale, std::abs(x1[i]));
      EXPECT_NEAR(x1[i], x2[i], 1e-9 * (1 + std::abs(x2[i]))) << n << " row " << i;
    }
    EXPECT_LT(residual, 1e-11 * (1 + scale)) << n;  // A x = b, not A^T x = b
  }
}

TEST(LapackDenseSolve, CallsARepeatedRowSingularAsTheCodecsLuDoes) {
  for (const std::size_t n : {2u, 50u, 300u}) {
    std::vector<double> a1 = random_matrix(n, 5, true), a2 = a1, b1(n, 1.0), b2(n, 1.0);
    EXPECT_FALSE(lapack_dense_solve(a1, b1, n)) << n;
    EXPECT_FALSE(codec::solve_dense(a2, b2, n)) << n;
  }
}

}  // namespace
}  // namespace softbody
