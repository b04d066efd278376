#include "client-cpp/devices/replay_device.h"

#include <algorithm>

namespace softbody::client {

ReplayDevice::ReplayDevice(const std::string& path)
    : ReplayDevice(load_recording(path), "replay of " + path) {}

ReplayDevice::ReplayDevice(std::vector<RecordedSample> samples, std::string name)
    : samples_(std::move(samples)), name_(std::move(name)) {
  for (const auto& s : samples_)
    for (double v : s.state.velocity)
      if (v != 0) has_velocity_ = true;
}

DeviceState ReplayDevice::read(double time_s) {
  const double t = samples_.front().t + time_s;  // the recording's clock
  if (t >= samples_.back().t) {
    finished_ = true;
    DeviceState last = samples_.back().state;
    last.velocity = {0, 0, 0};
    return last;
  }
  if (t < samples_[cursor_].t) {  // asked for an earlier time: find it again
    if (t <= samples_.front().t) return samples_.front().state;
    const auto after = std::upper_bound(samples_.begin(), samples_.end(), t,
                                        [](double x, const RecordedSample& s) { return x < s.t; });
    cursor_ = static_cast<size_t>(after - samples_.begin()) - 1;
  }
  while (cursor_ + 1 < samples_.size() && samples_[cursor_ + 1].t <= t) ++cursor_;
  const RecordedSample& a = samples_[cursor_];
  const RecordedSample& b = samples_[cursor_ + 1];
  const double span = b.t - a.t, w = (t - a.t) / span;
  DeviceState s = w < 0.5 ? a.state : b.state;  // orientation and buttons: nearest sample
  for (size_t k = 0; k < 3; ++k) {
    s.position[k] = (1 - w) * a.state.position[k] + w * b.state.position[k];
    s.velocity[k] = has_velocity_ ? (1 - w) * a.state.velocity[k] + w * b.state.velocity[k]
                                  : (b.state.position[k] - a.state.position[k]) / span;
  }
  return s;
}

}  // namespace softbody::client
