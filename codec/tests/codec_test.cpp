#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "codec/coupling_model.h"
#include "codec/frame_codec.h"

namespace softbody::codec {
namespace {

constexpr double kMin[3] = {-0.1, 0.0, -0.05};
constexpr double kMax[3] = {0.1, 0.15, 0.05};
const double kDiagonal = std::sqrt(0.2 * 0.2 + 0.15 * 0.15 + 0.1 * 0.1);

std::vector<double> random_positions(std::mt19937& rng, std::size_t n) {
  std::vector<double> xyz(3 * n);
  for (std::size_t i = 0; i < xyz.size(); ++i) {
    std::uniform_real_distribution<double> d(kMin[i % 3], kMax[i % 3]);
    xyz[i] = d(rng);
  }
  return xyz;
}

double max_vertex_error(const std::vector<double>& a, const std::vector<double>& b) {
  double worst = 0;
  for (std::size_t v = 0; v < a.size() / 3; ++v) {
    double d2 = 0;
    for (int k = 0; k < 3; ++k) d2 += std::pow(a[3 * v + k] - b[3 * v + k], 2);
    worst = std::max(worst, std::sqrt(d2));
  }
  return worst;
}

TEST(FrameCodec, KeyframeStaysWithinTheErrorBound) {
  std::mt19937 rng(1);
  for (double bound : {1e-3, 1e-4, 1e-6}) {
    const Grid grid = grid_for_box(kMin, kMax, bound);
    FrameEncoder encoder(grid, 10, false);
    FrameDecoder decoder;
    const auto xyz = random_positions(rng, 2000);
    std::vector<std::uint8_t> bytes;
    encoder.encode(xyz, false, bytes);
    std::vector<double> out;
    std::string error;
    ASSERT_TRUE(decoder.decode(bytes, out, error)) << error;
    EXPECT_EQ(decoder.last().kind, FrameKind::kKeyframe);
    EXPECT_LE(max_vertex_error(xyz, out), bound * kDiagonal * (1 + 1e-12));
    // ...and the bound is not met by accident: the error is a sizeable fraction of it.
    EXPECT_GT(max_vertex_error(xyz, out), 0.3 * bound * kDiagonal);
  }
}

TEST(FrameCodec, DeltasDoNotAccumulateErrorAndAreSmall) {
  std::mt19937 rng(2);
  const double bound = 1e-4;
  FrameEncoder encoder(grid_for_box(kMin, kMax, bound), 1000, false);
  FrameDecoder decoder;
  auto xyz = random_positions(rng, 500);
  std::normal_distribution<double> motion(0, 1e-4);  // 0.1 mm per frame
  std::vector<std::uint8_t> bytes;
  std::vector<float> out;
  std::string error;
  double delta_bytes = 0;
  for (int frame = 0; frame < 300; ++frame) {
    for (double& x : xyz) x += motion(rng);
    encoder.encode(xyz, false, bytes);
    ASSERT_TRUE(decoder.decode(bytes, out, error)) << error;
    if (frame > 0) {
      EXPECT_EQ(decoder.last().kind, FrameKind::kDelta);
      delta_bytes += static_cast<double>(bytes.size());
    }
    std::vector<double> decoded(out.begin(), out.end());
    // float output adds at most float rounding of ~0.2 m coordinates.
    EXPECT_LE(max_vertex_error(xyz, decoded), bound * kDiagonal + 1e-7);
  }
  const double per_vertex = delta_bytes / 299 / 500;
  EXPECT_LT(per_vertex, 4.0);  // vs 12 for raw float32
}

TEST(FrameCodec, KeyframeIntervalIsHonoured) {
  std::mt19937 rng(3);
  FrameEncoder encoder(grid_for_box(kMin, kMax, 1e-4), 4, false);
  FrameDecoder decoder;
  const auto xyz = random_positions(rng, 10);
  std::vector<std::uint8_t> bytes;
  std::vector<double> out;
  std::string error;
  std::string kinds;
  for (int i = 0; i < 9; ++i) {
    encoder.encode(xyz, i == 6, bytes);
    ASSERT_TRUE(decoder.decode(bytes, out, error));
    kinds += decoder.last().kind == FrameKind::kKeyframe ? 'K' : 'd';
  }
  EXPECT_EQ(kinds, "KdddKdKdd");
}

TEST(FrameCodec, DeltaWithoutItsReferenceIsRefusedUntilAKeyframe) {
  std::mt19937 rng(4);
  FrameEncoder encoder(grid_for_box(kMin, kMax, 1e-4), 100, false);
  const auto xyz = random_positions(rng, 10);
  std::vector<std::uint8_t> key, delta1, delta2;
  encoder.encode(xyz, false, key);
  encoder.encode(xyz, false, delta1);
  encoder.encode(xyz, false, delta2);
  FrameDecoder decoder;
  std::vector<double> out;
  std::string error;
  ASSERT_TRUE(decoder.decode(key, out, error));
  EXPECT_FALSE(decoder.decode(delta2, out, error));  // delta1 was lost
  EXPECT_NE(error.find("refers to frame 1"), std::string::npos) << error;
  EXPECT_FALSE(decoder.decode(delta1, out, error));  // the chain is broken now
  std::vector<std::uint8_t> key2;
  encoder.encode(xyz, true, key2);
  EXPECT_TRUE(decoder.decode(key2, out, error)) << error;
}

TEST(FrameCodec, RawFramesRoundTripAsFloat32) {
  std::mt19937 rng(5);
  FrameEncoder encoder(Grid{}, 1, true);
  const auto xyz = random_positions(rng, 100);
  std::vector<std::uint8_t> bytes;
  encoder.encode(xyz, false, bytes);
  EXPECT_EQ(bytes.size(), kHeaderBytes + 12 * 100);
  FrameDecoder decoder;
  std::vector<float> out;
  std::string error;
  ASSERT_TRUE(decoder.decode(bytes, out, error));
  for (std::size_t i = 0; i < xyz.size(); ++i) EXPECT_EQ(out[i], static_cast<float>(xyz[i]));
}

TEST(FrameCodec, FarAwayAndNonFiniteValuesForceAClampedKeyframe) {
  FrameEncoder encoder(grid_for_box(kMin, kMax, 1e-4), 100, false);
  std::vector<double> xyz = {0, 0, 0, 1e9, 0, 0};
  std::vector<std::uint8_t> bytes;
  encoder.encode(xyz, false, bytes);
  encoder.encode(xyz, false, bytes);
  FrameDecoder decoder;
  std::vector<double> out;
  std::string error;
  ASSERT_TRUE(decoder.decode(bytes, out, error)) << error;
  EXPECT_EQ(decoder.last().kind, FrameKind::kKeyframe);
  EXPECT_NEAR(out[0], 0, 1e-5);
}

TEST(FrameCodec, MalformedFramesAreRejectedWithoutCrashing) {
  std::mt19937 rng(6);
  FrameEncoder encoder(grid_for_box(kMin, kMax, 1e-4), 100, false);
  const auto xyz = random_positions(rng, 50);
  std::vector<std::uint8_t> good;
  encoder.encode(xyz, false, good);
  FrameDecoder decoder;
  std::vector<double> out;
  std::string error;
  // Every truncation fails cleanly.
  for (std::size_t len = 0; len < good.size(); ++len) {
    std::vector<std::uint8_t> cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(len));
    EXPECT_FALSE(decoder.decode(cut, out, error)) << len;
  }
  // A huge vertex count is refused before allocating.
  std::vector<std::uint8_t> huge = good;
  huge[4] = huge[5] = huge[6] = huge[7] = 0xff;
  EXPECT_FALSE(decoder.decode(huge, out, error));
  EXPECT_NE(error.find("exceeds"), std::string::npos);
  // Random garbage after a valid header never crashes.
  std::uniform_int_distribution<int> byte(0, 255);
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<std::uint8_t> noisy = good;
    for (int k = 0; k < 4; ++k)
      noisy[static_cast<std::size_t>(byte(rng)) % noisy.size()] =
          static_cast<std::uint8_t>(byte(rng));
    decoder.decode(noisy, out, error);
  }
}

TEST(CouplingModel, IsTheFirstOrderExpansion) {
  CouplingModel m;
  m.reference_position = {1, 2, 3};
  m.reference_velocity = {0, 0, 1};
  m.force = {0.5, -1, 2};
  m.dforce_dposition = {-100, 0, 0, 0, -200, 10, 0, 0, -300};
  m.dforce_dvelocity = {-1, 0, 0, 0, -1, 0, 0, 0, -2};
  const Vec3d f = evaluate(m, {1.01, 2, 3.02}, {0, 1, 1});
  EXPECT_NEAR(f[0], 0.5 - 1.0, 1e-12);
  EXPECT_NEAR(f[1], -1 + 0.2 - 1, 1e-12);
  EXPECT_NEAR(f[2], 2 - 6.0, 1e-12);
  EXPECT_NEAR(distance_from_reference(m, {1.03, 2.04, 3}), 0.05, 1e-15);
}

}  // namespace
}  // namespace softbody::codec
