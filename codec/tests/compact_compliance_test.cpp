// The tool contact problem's compliance as float32 upper triangle (codec/compact_compliance.h).
#include "codec/compact_compliance.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "codec/contact_pgs.h"

namespace softbody::codec {
namespace {

// A grasp's compliance: a rank-`rank` surface compliance over `rows` rows with a ridge of
// `ridge` of its scale, [m/N]. Entries from a fixed formula, not a random engine, so every
// platform builds the same matrix.
std::vector<double> surface_compliance(int rows, int rank, double ridge) {
  const auto n = static_cast<size_t>(rows);
  std::vector<double> w(n * n, 0);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) {
      double s = i == j ? ridge : 0;
      for (int k = 0; k < rank; ++k)
        s += std::sin(1.0 + 0.37 * static_cast<double>(i) * (k + 1) + 0.11 * k) *
             std::sin(1.0 + 0.37 * static_cast<double>(j) * (k + 1) + 0.11 * k);
      w[i * n + j] = 1e-3 * s / rank;
    }
  return w;
}

// Whether a symmetric matrix is positive definite: Cholesky's pivots all positive.
bool positive_definite(std::vector<double> a, size_t n) {
  for (size_t k = 0; k < n; ++k) {
    double pivot = a[k * n + k];
    for (size_t p = 0; p < k; ++p) pivot -= a[k * n + p] * a[k * n + p];
    if (!(pivot > 0)) return false;
    const double d = std::sqrt(pivot);
    a[k * n + k] = d;
    for (size_t i = k + 1; i < n; ++i) {
      double s = a[i * n + k];
      for (size_t p = 0; p < k; ++p) s -= a[i * n + p] * a[k * n + p];
      a[i * n + k] = s / d;
    }
  }
  return true;
}

TEST(CompactCompliance, RoundTripsToFloatPrecisionInAQuarterOfTheBytes) {
  const int rows = 57;  // 19 contacts
  const std::vector<double> w = surface_compliance(rows, 20, 1e-2);
  const std::vector<float> upper = encode_compliance_upper(w, rows);
  ASSERT_EQ(upper.size(), static_cast<size_t>(rows * (rows + 1) / 2));
  EXPECT_LT(static_cast<double>(upper.size() * sizeof(float)),
            0.26 * static_cast<double>(w.size() * sizeof(double)));
  std::vector<double> decoded;
  ASSERT_TRUE(decode_compliance_upper(upper.data(), upper.size(), rows, decoded));
  ASSERT_EQ(decoded.size(), w.size());
  double largest = 0;
  for (double x : w) largest = std::max(largest, std::abs(x));
  for (size_t i = 0; i < static_cast<size_t>(rows); ++i)
    for (size_t j = 0; j < static_cast<size_t>(rows); ++j) {
      const size_t k = i * rows + j;
      EXPECT_EQ(decoded[k], decoded[j * rows + i]);  // symmetric exactly
      // float rounding (6e-8) plus the diagonal's raise (2u times a row sum, ~57 entries)
      EXPECT_NEAR(decoded[k], w[k], 1e-7 * std::abs(w[k]) + (i == j ? 1e-5 * largest : 0));
    }
}

// A nearly singular W (rank 30 of 90 rows, a ridge of 1e-9): rounding each entry to float makes
// it indefinite, the encoder's raised diagonal does not.
TEST(CompactCompliance, KeepsANearlySingularComplianceDefinite) {
  const int rows = 90;
  const std::vector<double> w = surface_compliance(rows, 30, 1e-9);
  ASSERT_TRUE(positive_definite(w, rows));
  std::vector<double> rounded(w.size());
  for (size_t k = 0; k < w.size(); ++k) rounded[k] = static_cast<float>(w[k]);
  EXPECT_FALSE(positive_definite(rounded, rows)) << "plain rounding should break this matrix";
  std::vector<double> decoded;
  const std::vector<float> upper = encode_compliance_upper(w, rows);
  ASSERT_TRUE(decode_compliance_upper(upper.data(), upper.size(), rows, decoded));
  EXPECT_TRUE(positive_definite(decoded, rows));
}

// The contact forces from the decoded problem: those of the full one to ~1e-5.
TEST(CompactCompliance, GivesTheSameContactForces) {
  const int m = 20, rows = 3 * m;
  ContactProblem full;
  full.contacts = m;
  full.w = surface_compliance(rows, 24, 1e-3);
  for (int k = 0; k < m; ++k) {
    full.delta_free.push_back(-1e-3 * (0.3 + 0.5 * std::abs(std::sin(2.0 * k))));
    full.delta_free.push_back(2e-4 * std::cos(3.0 * k));
    full.delta_free.push_back(2e-4 * std::sin(5.0 * k));
    full.mu.push_back(0.5);
  }
  ContactProblem compact = full;
  const std::vector<float> upper = encode_compliance_upper(full.w, rows);
  ASSERT_TRUE(decode_compliance_upper(upper.data(), upper.size(), rows, compact.w));
  const PgsOptions pgs{.max_iterations = 2000, .tolerance = 1e-12};
  std::vector<double> a, b;
  ASSERT_TRUE(solve_contact(full, a, pgs).converged);
  ASSERT_TRUE(solve_contact(compact, b, pgs).converged);
  double total = 0, largest = 0;
  for (int k = 0; k < m; ++k) total += a[static_cast<size_t>(3 * k)];
  ASSERT_GT(total, 0);
  for (size_t i = 0; i < a.size(); ++i) largest = std::max(largest, std::abs(a[i] - b[i]));
  EXPECT_LT(largest, 1e-5 * total);
}

TEST(CompactCompliance, RefusesAWrongSizeOrANonFiniteEntry) {
  std::vector<double> w;
  const std::vector<float> five(5, 1.0f);
  EXPECT_FALSE(decode_compliance_upper(five.data(), five.size(), 3, w));  // 3 rows need 6
  EXPECT_TRUE(w.empty());
  std::vector<float> six(6, 1.0f);
  EXPECT_TRUE(decode_compliance_upper(six.data(), six.size(), 3, w));
  six[4] = std::nanf("");
  EXPECT_FALSE(decode_compliance_upper(six.data(), six.size(), 3, w));
  EXPECT_TRUE(w.empty());
  EXPECT_TRUE(encode_compliance_upper({1, 2, 3}, 2).empty());  // 3 entries for 2 rows
}

}  // namespace
}  // namespace softbody::codec
