#include "client-cpp/haptics/passivity_controller.h"

#include <algorithm>
#include <cmath>

namespace softbody::client {

namespace {
double dot(const Vec3& a, const Vec3& b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
}  // namespace

Vec3 PassivityController::filter(const Vec3& desired, const Vec3& velocity, double dt) {
  if (!options_.enabled || !(dt > 0)) return desired;
  const double speed2 = dot(velocity, velocity);
  const double after = energy_ - dot(desired, velocity) * dt;  // E if `desired` were rendered
  if (after >= 0 || speed2 <= 0) return desired;
  // Damping that brings E back to zero over this tick. At most it takes away the desired force's
  // component along the motion (the part that does work on the hand) and adds max_force against
  // the motion, so a spent observer (E < 0 after a capped tick) cannot fall further.
  const double along = std::max(0.0, dot(desired, velocity)) / speed2;
  double alpha = -after / (speed2 * dt);
  alpha = std::min(alpha, along + options_.max_force / std::sqrt(speed2));
  ++active_ticks_;
  dissipated_ += alpha * speed2 * dt;
  return {desired[0] - alpha * velocity[0], desired[1] - alpha * velocity[1],
          desired[2] - alpha * velocity[2]};
}

void PassivityController::record_output(const Vec3& output, const Vec3& velocity, double dt) {
  if (!(dt > 0)) return;
  const double power = dot(output, velocity);  // into the hand
  delivered_ += power * dt;
  energy_ -= power * dt;
}

}  // namespace softbody::client
