// The device-side safety of a haptic loop (notes/anchors.md lesson 7): a force magnitude clamp, a
// force-rate clamp, a watchdog that ramps the force to zero when no model has arrived for a while
// (and back over the same ramp when models come again, or when the first one comes), and zero
// force at once when the connection is gone.
#pragma once

#include "client-cpp/devices/haptic_device.h"

namespace softbody::client {

struct SafetyLimits {
  double max_force = 8;          // [N] (desktop devices render 3 to 10 N)
  double max_force_rate = 2000;  // [N/s]
  // No model for this long beyond what the link explains (allow_link_delay): start ramping down.
  double watchdog_timeout_s = 0.1;
  double watchdog_ramp_s = 0.05;  // from full to zero force
};

class ForceSafety {
 public:
  explicit ForceSafety(const SafetyLimits& limits) : limits_(limits) {}

  // The force to output this tick. `model_age_s`: time since the newest model arrived (infinite
  // when none has); `connected`: the tool stream is alive; `dt`: time since the last tick.
  Vec3 filter(const Vec3& desired, double dt, double model_age_s, bool connected);

  // Scale the watchdog applies at this model age: 1, falling linearly to 0 over the ramp.
  double watchdog_scale(double model_age_s) const;
  // On a slow link replies come in bursts, up to a round trip apart when TCP resends a lost
  // segment: the watchdog then waits this much longer (the loop passes the smoothed round trip
  // plus four deviations, as TCP's retransmission timer does) before it calls the server gone.
  void allow_link_delay(double seconds) { link_delay_s_ = seconds > 0 ? seconds : 0; }
  double watchdog_timeout() const { return limits_.watchdog_timeout_s + link_delay_s_; }

  long magnitude_clamps() const { return magnitude_clamps_; }
  long rate_clamps() const { return rate_clamps_; }
  long watchdog_ticks() const { return watchdog_ticks_; }
  const Vec3& previous() const { return previous_; }

 private:
  SafetyLimits limits_;
  Vec3 previous_{0, 0, 0};
  double link_delay_s_ = 0;
  double level_ = 1;  // the watchdog's scale last tick: a cut force returns over the ramp
  long magnitude_clamps_ = 0, rate_clamps_ = 0, watchdog_ticks_ = 0;
};

}  // namespace softbody::client
