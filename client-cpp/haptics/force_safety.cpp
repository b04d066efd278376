#include "client-cpp/haptics/force_safety.h"

#include <algorithm>
#include <cmath>

namespace softbody::client {

namespace {
double norm(const Vec3& v) {
  return std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}
}  // namespace

double ForceSafety::watchdog_scale(double model_age_s) const {
  const double timeout = watchdog_timeout();
  if (!(model_age_s > timeout)) return 1;
  if (limits_.watchdog_ramp_s <= 0) return 0;
  return std::max(0.0, 1 - (model_age_s - timeout) / limits_.watchdog_ramp_s);
}

Vec3 ForceSafety::filter(const Vec3& desired, double dt, double model_age_s, bool connected) {
  if (!connected) {
    previous_ = {0, 0, 0};
    level_ = 0;
    return previous_;
  }
  Vec3 f = desired;
  for (double& x : f)
    if (!std::isfinite(x)) x = 0;
  const double magnitude = norm(f);
  if (magnitude > limits_.max_force) {
    ++magnitude_clamps_;
    for (double& x : f) x *= limits_.max_force / magnitude;
  }
  // After the watchdog cut the force (or before the first model), it comes back over the same
  // ramp, not at the rate clamp's pace: a server that answers again after a stall, or a link
  // after a long loss, would otherwise push a hand that sank in meanwhile at up to 2,000 N/s
  // (measured on a 300 ms lossy link: 0 to 3.4 N in under 2 ms, the pen shot out at 0.2 m/s).
  const double recovered =
      limits_.watchdog_ramp_s > 0 ? level_ + std::max(dt, 0.0) / limits_.watchdog_ramp_s : 1.0;
  const double scale = std::min(watchdog_scale(model_age_s), std::min(recovered, 1.0));
  level_ = scale;
  if (scale < 1) ++watchdog_ticks_;
  for (double& x : f) x *= scale;
  // The rate clamp limits how fast the output may change, except towards zero from the watchdog:
  // that ramp is already bounded by its own duration.
  const Vec3 change{f[0] - previous_[0], f[1] - previous_[1], f[2] - previous_[2]};
  const double step = norm(change), allowed = limits_.max_force_rate * std::max(dt, 0.0);
  if (step > allowed && scale == 1) {
    ++rate_clamps_;
    for (int k = 0; k < 3; ++k) f[k] = previous_[k] + change[k] * (allowed / step);
  }
  previous_ = f;
  return f;
}

}  // namespace softbody::client
