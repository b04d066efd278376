// Keyframed obstacle orientation (engine/sim/orientation.h): keys at a constant rate turn the
// obstacle exactly as the same spin does; the rotation is held outside the keys; slerp takes the
// shorter way; bad keys are refused.
#include "engine/sim/orientation.h"

#include <gtest/gtest.h>

#include <numbers>

#include "engine/sim/external_forces.h"

namespace softbody {
namespace {

constexpr double kPi = std::numbers::pi;

TEST(Orientation, KeysAtAConstantRateTurnAsTheSpin) {
  const Vec3 axis = Vec3(1, 2, -1).normalized();
  const double rate = 0.8;  // rad/s
  Obstacle spinning, keyed;
  spinning.spin = rate * axis;
  keyed.orientation = std::make_shared<const OrientationTrajectory>(std::vector<OrientationKey>{
      {0, Vec3::Zero()}, {1, rate * 1 * axis}, {2.5, rate * 2.5 * axis}});
  for (double t : {0.0, 0.3, 1.0, 1.7, 2.5}) {
    EXPECT_LT((obstacle_rotation(keyed, t) - obstacle_rotation(spinning, t)).norm(), 1e-12) << t;
  }
  // Held after the last key and before the first.
  EXPECT_LT((obstacle_rotation(keyed, 4) - obstacle_rotation(spinning, 2.5)).norm(), 1e-12);
  EXPECT_LT((obstacle_rotation(keyed, -1) - Mat3::Identity()).norm(), 1e-12);
  // posed_at turns the obstacle's normal and axis with it.
  keyed.normal = Vec3::UnitX();
  EXPECT_LT((posed_at(keyed, 1.7).normal - obstacle_rotation(spinning, 1.7) * Vec3::UnitX()).norm(),
            1e-12);
}

TEST(Orientation, SlerpTakesTheShorterWay) {
  // 170 and -170 degrees about z are 20 degrees apart: half way is 180, not 0.
  const OrientationTrajectory turn(
      {{0, Vec3(0, 0, 170 * kPi / 180)}, {1, Vec3(0, 0, -170 * kPi / 180)}});
  const Mat3 half = turn.rotation(0.5);
  EXPECT_LT((half - Eigen::AngleAxisd(kPi, Vec3::UnitZ()).toRotationMatrix()).norm(), 1e-12);
}

TEST(Orientation, BadKeysAreRefused) {
  EXPECT_THROW(OrientationTrajectory({}), std::invalid_argument);
  EXPECT_THROW(OrientationTrajectory({{1, Vec3::Zero()}, {1, Vec3::UnitX()}}),
               std::invalid_argument);
}

}  // namespace
}  // namespace softbody
