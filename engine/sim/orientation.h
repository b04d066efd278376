// Keyframed orientation of an obstacle (issue 22: rotating grasps beyond a constant spin): each
// key is a rotation from the obstacle's pose at t = 0, given as an axis-angle vector; between
// keys the rotation is interpolated by slerp (constant angular velocity, the shorter way: keys
// must be less than 180 degrees apart), before the first and after the last key it is held.
#pragma once

#include <Eigen/Geometry>
#include <vector>

#include "engine/types.h"

namespace softbody {

struct OrientationKey {
  double t;
  Vec3 axis_angle;  // rotation axis times angle [rad]
};

class OrientationTrajectory {
 public:
  // Throws std::invalid_argument unless there is a key and their times increase strictly.
  explicit OrientationTrajectory(const std::vector<OrientationKey>& keys);
  Mat3 rotation(double t) const;

 private:
  std::vector<double> times_;
  std::vector<Eigen::Quaterniond> rotations_;  // each in the hemisphere of the one before
};

}  // namespace softbody
