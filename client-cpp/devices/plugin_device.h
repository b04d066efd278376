// A HapticDevice backed by a plugin shared library (devices/softbody_haptic_plugin.h).
#pragma once

#include <memory>
#include <string>

#include "client-cpp/devices/haptic_device.h"
#include "client-cpp/devices/softbody_haptic_plugin.h"

namespace softbody::client {

class PluginDevice : public HapticDevice {
 public:
  // Loads `path`, checks its ABI version and opens the device with `config`. Throws
  // std::runtime_error naming the library and the problem.
  PluginDevice(const std::string& path, const std::string& config);
  ~PluginDevice() override;
  PluginDevice(const PluginDevice&) = delete;
  PluginDevice& operator=(const PluginDevice&) = delete;

  std::string name() const override;
  DeviceState read(double time_s) override;
  void write_force(const Vec3& force, double time_s) override;
  bool finished() const override;
  long failures() const { return failures_; }

 private:
  std::string path_;
  void* library_ = nullptr;
  const softbody_haptic_plugin* plugin_ = nullptr;
  void* device_ = nullptr;
  DeviceState last_;
  long failures_ = 0;
};

}  // namespace softbody::client
