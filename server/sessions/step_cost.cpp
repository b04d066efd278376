#include "server/sessions/step_cost.h"

#include <algorithm>

namespace softbody::server {

void StepCostMeter::record(double cpu_seconds, double dt) {
  std::lock_guard lock(mutex_);
  if (++seen_ <= kWarmupSteps || dt <= 0) return;
  samples_[static_cast<std::size_t>(next_)] = std::max(0.0, cpu_seconds) / dt;
  next_ = (next_ + 1) % kWindow;
  samples_n_ = std::min(samples_n_ + 1, kWindow);
}

double StepCostMeter::load() const {
  std::lock_guard lock(mutex_);
  if (samples_n_ < kMinSamples) return -1;
  double sum = 0;
  for (int i = 0; i < samples_n_; ++i) sum += samples_[static_cast<std::size_t>(i)];
  return sum / samples_n_;
}

void StepCostMeter::restart() {
  std::lock_guard lock(mutex_);
  seen_ = samples_n_ = next_ = 0;
}

}  // namespace softbody::server
