#include "engine/sim/orientation.h"

#include <algorithm>
#include <stdexcept>

namespace softbody {
namespace {

Eigen::Quaterniond from_axis_angle(const Vec3& axis_angle) {
  const double angle = axis_angle.norm();
  if (!(angle > 0)) return Eigen::Quaterniond::Identity();
  return Eigen::Quaterniond(Eigen::AngleAxisd(angle, axis_angle / angle));
}

}  // namespace

OrientationTrajectory::OrientationTrajectory(const std::vector<OrientationKey>& keys) {
  if (keys.empty()) throw std::invalid_argument("orientation needs at least one keyframe");
  for (size_t k = 0; k < keys.size(); ++k) {
    if (k > 0 && !(keys[k].t > keys[k - 1].t))
      throw std::invalid_argument("orientation keyframe times must increase strictly");
    Eigen::Quaterniond q = from_axis_angle(keys[k].axis_angle);
    // q and -q are the same rotation; slerp between neighbours of one hemisphere takes the
    // shorter way.
    if (k > 0 && q.dot(rotations_.back()) < 0) q.coeffs() = -q.coeffs();
    times_.push_back(keys[k].t);
    rotations_.push_back(q);
  }
}

Mat3 OrientationTrajectory::rotation(double t) const {
  if (t <= times_.front()) return rotations_.front().toRotationMatrix();
  if (t >= times_.back()) return rotations_.back().toRotationMatrix();
  const auto next =
      static_cast<size_t>(std::upper_bound(times_.begin(), times_.end(), t) - times_.begin());
  const double s = (t - times_[next - 1]) / (times_[next] - times_[next - 1]);
  return rotations_[next - 1].slerp(s, rotations_[next]).toRotationMatrix();
}

}  // namespace softbody
