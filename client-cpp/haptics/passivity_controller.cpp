#include "client-cpp/haptics/passivity_controller.h"

#include <algorithm>
#include <cmath>

namespace softbody::client {

namespace {
double dot(const Vec3& a, const Vec3& b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
}  // namespace

void PassivityController::observe(const Vec3& position) {
  if (!have_output_) return;
  const Vec3 moved{position[0] - last_position_[0], position[1] - last_position_[1],
                   position[2] - last_position_[2]};
  const double work = dot(last_output_, moved);  // done on the hand over the last tick
  delivered_ += work;
  energy_ -= work;
  have_output_ = false;
}

Vec3 PassivityController::filter(const Vec3& desired, const Vec3& position, const Vec3& velocity,
                                 double dt) {
  observe(position);
  if (!options_.enabled || !(dt > 0)) return desired;
  const double speed2 = dot(velocity, velocity);
  const double after = energy_ - dot(desired, velocity) * dt;  // E if `desired` were rendered
  if (after >= 0 || speed2 <= options_.min_speed * options_.min_speed) return desired;
  const double alpha = std::min(-after / (speed2 * dt), options_.max_damping);
  ++active_ticks_;
  dissipated_ += alpha * speed2 * dt;
  return {desired[0] - alpha * velocity[0], desired[1] - alpha * velocity[1],
          desired[2] - alpha * velocity[2]};
}

void PassivityController::record_output(const Vec3& output, const Vec3& position) {
  observe(position);  // (nothing when filter() already did at this position)
  last_output_ = output;
  last_position_ = position;
  have_output_ = true;
}

}  // namespace softbody::client
