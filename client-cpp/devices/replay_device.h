// Plays a recorded device motion back (devices/recording.h): positions interpolated linearly in
// time, velocities from the recording or by differences. The forces it is given are discarded.
#pragma once

#include <string>
#include <vector>

#include "client-cpp/devices/recording.h"

namespace softbody::client {

class ReplayDevice : public HapticDevice {
 public:
  explicit ReplayDevice(const std::string& path);  // throws on a malformed file
  explicit ReplayDevice(std::vector<RecordedSample> samples, std::string name = "replay");

  std::string name() const override { return name_; }
  DeviceState read(double time_s) override;
  void write_force(const Vec3&, double) override {}
  bool finished() const override { return finished_; }
  double duration() const { return samples_.back().t - samples_.front().t; }

 private:
  std::vector<RecordedSample> samples_;
  std::string name_;
  bool has_velocity_ = false;
  bool finished_ = false;
  size_t cursor_ = 0;
};

}  // namespace softbody::client
