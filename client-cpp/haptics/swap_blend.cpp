#include "client-cpp/haptics/swap_blend.h"

#include <algorithm>
#include <cmath>

namespace softbody::client {

void SwapBlend::swap(const Vec3& before, const Vec3& after) {
  if (!(blend_s_ > 0)) return;  // blending off: the new model's force at once
  for (int k = 0; k < 3; ++k) offset_[k] += before[k] - after[k];
  remaining_s_ = blend_s_;
}

Vec3 SwapBlend::advance(double dt) {
  const double size = std::hypot(offset_[0], offset_[1], offset_[2]);
  if (size == 0) return offset_;
  // Linear over what is left of blend_s (all of it once that has passed), never more than
  // max_step in one tick, however long the tick was.
  double step = remaining_s_ > dt ? size * dt / remaining_s_ : size;
  if (max_step_ > 0) step = std::min(step, max_step_);
  remaining_s_ = std::max(0.0, remaining_s_ - dt);
  largest_step_ = std::max(largest_step_, step);
  const double keep = (size - step) / size;
  for (double& x : offset_) x *= keep;
  return offset_;
}

}  // namespace softbody::client
