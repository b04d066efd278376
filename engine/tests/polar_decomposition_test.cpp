#include <gtest/gtest.h>

#include <random>

#include "engine/forces/element_models.h"

namespace softbody {
namespace {

void expect_polar(const Mat3& f) {
  Mat3 r, s;
  polar_decomposition(f, r, s);
  EXPECT_LT((r.transpose() * r - Mat3::Identity()).norm(), 1e-13) << f;
  EXPECT_NEAR(r.determinant(), 1.0, 1e-13) << f;
  EXPECT_LT((s - s.transpose()).norm(), 1e-13 * s.norm()) << f;
  EXPECT_LT((r * s - f).norm(), 1e-13 * f.norm()) << f;
  // The polar rotation is the closest rotation: no other R' = R exp([w]x) does better.
  for (const Vec3& w : {Vec3(1e-3, 0, 0), Vec3(0, -1e-3, 0), Vec3(0, 0, 1e-3)}) {
    Mat3 other = r * Eigen::AngleAxisd(w.norm(), w.normalized()).toRotationMatrix();
    if (f.determinant() > 0) {
      EXPECT_GE((f - other).norm(), (f - r).norm() - 1e-15) << f;
    }
  }
}

TEST(PolarDecomposition, RandomWellShapedInvertedAndNearlyFlat) {
  std::mt19937 rng(4);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int n = 0; n < 200; ++n) {
    Mat3 f = Mat3::Identity() + 0.5 * Mat3::NullaryExpr([&] { return u(rng); });
    expect_polar(f);
    Mat3 inverted = f;
    inverted.col(0) *= -1;
    expect_polar(inverted);
    Mat3 flat = f;
    flat.col(2) = 1e-4 * flat.col(2) + flat.col(0);  // nearly singular: takes the SVD path
    expect_polar(flat);
  }
  expect_polar(Mat3::Identity());
  expect_polar(Eigen::AngleAxisd(2.5, Vec3(1, 2, 3).normalized()).toRotationMatrix());
}

}  // namespace
}  // namespace softbody
