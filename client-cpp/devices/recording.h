// Device recordings as CSV (one row per haptic tick):
//   t,x,y,z,qw,qx,qy,qz,vx,vy,vz,buttons,fx,fy,fz
// t [s] on the loop clock, pose and velocity in the device frame [m, m/s], the force written to
// the device [N]. The replay device needs only t,x,y,z; the other columns are optional, found by
// name in the header, so hand-written files replay too.
#pragma once

#include <condition_variable>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "client-cpp/devices/haptic_device.h"

namespace softbody::client {

struct RecordedSample {
  double t = 0;
  DeviceState state;
  Vec3 force{0, 0, 0};
};

// Reads a recording; throws std::runtime_error naming the file, line and problem.
std::vector<RecordedSample> load_recording(const std::string& path);

// Wraps a device and records every tick. Rows are handed to a writer thread, so the haptic loop
// never waits on the disk.
class RecordingDevice : public HapticDevice {
 public:
  // Throws std::runtime_error when `path` cannot be created.
  RecordingDevice(std::unique_ptr<HapticDevice> inner, const std::string& path);
  ~RecordingDevice() override;

  std::string name() const override { return inner_->name() + ", recorded"; }
  DeviceState read(double time_s) override;
  void write_force(const Vec3& force, double time_s) override;
  bool finished() const override { return inner_->finished(); }
  // Writes what is left and closes the file (also done by the destructor).
  void close();
  long rows() const { return rows_; }

 private:
  void writer();

  std::unique_ptr<HapticDevice> inner_;
  std::ofstream out_;
  RecordedSample current_;
  bool have_current_ = false;
  long rows_ = 0;

  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<RecordedSample> queue_;  // guarded by mutex_
  bool closing_ = false;               // guarded by mutex_
  std::thread thread_;
};

}  // namespace softbody::client
