// What the haptic loop needs from a device (docs/haptic-devices.md): its state in, a force out.
// Positions are in the device's own frame and units (metres); the loop maps them to the scene.
// Both calls come from the haptic loop thread, once per tick, and must not block.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace softbody::client {

using Vec3 = std::array<double, 3>;

struct DeviceState {
  Vec3 position{0, 0, 0};                         // [m]
  std::array<double, 4> orientation{1, 0, 0, 0};  // unit quaternion w, x, y, z
  Vec3 velocity{0, 0, 0};                         // [m/s]
  std::uint32_t buttons = 0;                      // bit i = button i
};

class HapticDevice {
 public:
  virtual ~HapticDevice() = default;
  virtual std::string name() const = 0;
  // `time_s`: the loop's clock (seconds since the loop started).
  virtual DeviceState read(double time_s) = 0;
  virtual void write_force(const Vec3& force, double time_s) = 0;  // [N], device frame
  // A device with a natural end (a replayed recording) says so; the loop then stops.
  virtual bool finished() const { return false; }
};

}  // namespace softbody::client
