// The tool moved with mouse and keyboard when no haptic device is attached: a HapticDevice whose
// position the window thread sets; the force it is given is only displayed.
#pragma once

#include <mutex>

#include "client-cpp/devices/haptic_device.h"

namespace softbody::viewer {

class PointerDevice : public client::HapticDevice {
 public:
  explicit PointerDevice(const client::Vec3& start) : target_(start), position_(start) {}

  std::string name() const override { return "mouse and keyboard"; }
  client::DeviceState read(double time_s) override;
  void write_force(const client::Vec3&, double) override {}

  // Window thread.
  void move_to(const client::Vec3& p);
  client::Vec3 target() const;

 private:
  mutable std::mutex mutex_;
  client::Vec3 target_;
  // Loop thread: the position follows the target smoothly (a critically damped filter), so a
  // mouse jump does not slam the tool into the body.
  client::Vec3 position_, velocity_{0, 0, 0};
  double last_time_ = 0;
};

}  // namespace softbody::viewer
