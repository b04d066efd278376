#include "client-cpp/haptics/swap_blend.h"

#include <algorithm>
#include <cmath>

namespace softbody::client {

void SwapBlend::swap(const Vec3& before, const Vec3& after) {
  if (!(blend_s_ > 0)) return;  // blending off: the new model's force at once
  for (int k = 0; k < 3; ++k) offset_[k] += before[k] - after[k];
  const double size = std::hypot(offset_[0], offset_[1], offset_[2]);
  remaining_s_ = max_rate_ > 0 ? std::max(blend_s_, size / max_rate_) : blend_s_;
}

Vec3 SwapBlend::advance(double dt) {
  if (remaining_s_ <= 0) return offset_ = {0, 0, 0};
  const double keep = std::max(0.0, remaining_s_ - dt) / remaining_s_;
  const double step = (1 - keep) * std::hypot(offset_[0], offset_[1], offset_[2]);
  largest_step_ = std::max(largest_step_, step);
  for (double& x : offset_) x *= keep;
  remaining_s_ -= dt;
  return offset_;
}

}  // namespace softbody::client
