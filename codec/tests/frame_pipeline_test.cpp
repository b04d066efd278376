// FramePipeline (the browser's WebAssembly frame path) natively: decoding, continuous
// interpolation, smooth normals against hand-computed values.
#include <gtest/gtest.h>

#include <cmath>

#include "codec/wasm/frame_pipeline.h"

namespace softbody::codec {
namespace {

// A unit right tetrahedron's surface: 4 vertices, 4 outward counter-clockwise triangles.
const std::vector<std::uint32_t> kTriangles = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
const std::vector<double> kRest = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};

std::vector<std::uint8_t> encode(FrameEncoder& encoder, const std::vector<double>& xyz, bool key) {
  std::vector<std::uint8_t> bytes;
  encoder.encode(xyz, key, bytes);
  return bytes;
}

bool push(FramePipeline& p, const std::vector<std::uint8_t>& bytes) {
  std::copy(bytes.begin(), bytes.end(), p.input(bytes.size()));
  return p.push(bytes.size());
}

TEST(FramePipeline, InterpolatesFromWhatWasDisplayedToTheNewestFrame) {
  const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  FrameEncoder encoder(grid_for_box(lo, hi, 1e-5), 100, false);
  FramePipeline p;
  ASSERT_TRUE(p.reset(4, kTriangles));
  ASSERT_TRUE(push(p, encode(encoder, kRest, true))) << p.error();
  p.interpolate(0.0);
  EXPECT_NEAR(p.displayed()[3], 1.0, 2e-5);  // the first frame is shown as it is

  std::vector<double> moved = kRest;
  moved[3] = 1.5;  // vertex 1 moves +0.5 in x
  ASSERT_TRUE(push(p, encode(encoder, moved, false))) << p.error();
  p.interpolate(0.5);
  EXPECT_NEAR(p.displayed()[3], 1.25, 2e-5);

  // A frame arriving halfway: the motion continues from 1.25, without a jump.
  moved[3] = 2.0;
  ASSERT_TRUE(push(p, encode(encoder, moved, false))) << p.error();
  p.interpolate(0.0);
  EXPECT_NEAR(p.displayed()[3], 1.25, 2e-5);
  p.interpolate(1.0);
  EXPECT_NEAR(p.displayed()[3], 2.0, 2e-5);
  p.interpolate(7.0);  // clamped: never extrapolates
  EXPECT_NEAR(p.displayed()[3], 2.0, 2e-5);
  EXPECT_EQ(p.frames(), 3u);
}

// Frames faster than draws (a busy page gets them in bursts just before it draws): each blend
// starts from the frame before the newest, so the display is one frame behind, never frozen at
// what it showed before the burst.
TEST(FramePipeline, FramesBetweenDrawsLeaveTheDisplayOneFrameBehind) {
  const double lo[3] = {0, 0, 0}, hi[3] = {5, 1, 1};
  FrameEncoder encoder(grid_for_box(lo, hi, 1e-5), 100, false);
  FramePipeline p;
  ASSERT_TRUE(p.reset(4, kTriangles));
  ASSERT_TRUE(push(p, encode(encoder, kRest, true))) << p.error();
  p.interpolate(0.0);
  std::vector<double> moved = kRest;
  for (int f = 1; f <= 4; ++f) {
    moved[3] = 1.0 + f;  // vertex 1 at x = 2, 3, 4, 5
    ASSERT_TRUE(push(p, encode(encoder, moved, false))) << p.error();
  }
  p.interpolate(0.0);  // the draw right after the burst
  EXPECT_NEAR(p.displayed()[3], 4.0, 1e-4);  // within the quantization of a 5-unit box
  p.interpolate(1.0);
  EXPECT_NEAR(p.displayed()[3], 5.0, 1e-4);
}

TEST(FramePipeline, SmoothNormalsAreAreaWeightedAndUnit) {
  const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  FrameEncoder encoder(grid_for_box(lo, hi, 1e-6), 100, true);  // raw float32
  FramePipeline p;
  ASSERT_TRUE(p.reset(4, kTriangles));
  ASSERT_TRUE(push(p, encode(encoder, kRest, true)));
  p.interpolate(1.0);
  p.compute_normals();
  // Vertex 3 = (0,0,1) touches faces with unit normals -x and -y (area 1/2 each) and
  // (1,1,1)/sqrt(3) (area sqrt(3)/2): the area-weighted sum is (0, 0, 1/2), so the normal is +z.
  const std::vector<float>& n = p.normals();
  EXPECT_NEAR(n[9], 0.0, 1e-6);
  EXPECT_NEAR(n[10], 0.0, 1e-6);
  EXPECT_NEAR(n[11], 1.0, 1e-6);
  // Vertex 0 = origin: faces -z, -y, -x with area 1/2 each -> -(1,1,1)/sqrt(3).
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(n[static_cast<size_t>(k)], -1.0 / std::sqrt(3.0), 1e-6);
}

TEST(FramePipeline, RefusesFramesOfAnotherSizeAndBadTriangles) {
  const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  FrameEncoder encoder(grid_for_box(lo, hi, 1e-4), 100, false);
  FramePipeline p;
  EXPECT_FALSE(p.reset(3, kTriangles));  // index 3 with 3 vertices
  EXPECT_NE(p.error().find("triangle index 3"), std::string::npos);
  ASSERT_TRUE(p.reset(4, kTriangles));
  std::vector<double> five(15, 0.5);
  EXPECT_FALSE(push(p, encode(encoder, five, true)));
  EXPECT_NE(p.error().find("5 vertices"), std::string::npos) << p.error();
  const std::vector<std::uint8_t> garbage = {1, 2, 3};
  EXPECT_FALSE(push(p, garbage));
}

}  // namespace
}  // namespace softbody::codec
