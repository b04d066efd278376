#include "client-cpp/viewer/pointer_device.h"

#include <algorithm>
#include <cmath>

namespace softbody::viewer {

void PointerDevice::move_to(const client::Vec3& p) {
  std::lock_guard lock(mutex_);
  target_ = p;
}

client::Vec3 PointerDevice::target() const {
  std::lock_guard lock(mutex_);
  return target_;
}

client::DeviceState PointerDevice::read(double time_s) {
  const client::Vec3 goal = target();
  const double dt = std::clamp(time_s - last_time_, 0.0, 0.01);
  last_time_ = time_s;
  const double omega = 40;  // [1/s]: settles in about 0.1 s
  for (size_t k = 0; k < 3; ++k) {
    const double a = omega * omega * (goal[k] - position_[k]) - 2 * omega * velocity_[k];
    velocity_[k] += dt * a;
    position_[k] += dt * velocity_[k];
  }
  client::DeviceState s;
  s.position = position_;
  s.velocity = velocity_;
  return s;
}

}  // namespace softbody::viewer
