// Force continuity at model swaps. A new model (a newer server step, or the same step's contact
// problem for a tool that moved) gives a different force at the same tool pose than the model it
// replaces: up to 1.7 N when a vertex entered contact between replies (bench/RESULTS.md), felt
// as a click, and several newtons on a slow link when a burst of replies skips many steps. At a
// swap the difference becomes an offset added to the new model's force, so the rendered force
// does not jump, and the offset falls linearly to zero over `blend_s`, or slower when that would
// change the force faster than `max_rate` (0.1 N per tick at 100 N/s and 1 kHz). A swap during a
// blend adds its difference and restarts it.
#pragma once

#include "client-cpp/devices/haptic_device.h"

namespace softbody::client {

class SwapBlend {
 public:
  SwapBlend(double blend_s, double max_rate) : blend_s_(blend_s), max_rate_(max_rate) {}

  // The old model's and the new model's force at the tool's pose, at the tick of the swap.
  void swap(const Vec3& before, const Vec3& after);
  // The offset to add to the model's force this tick, after `dt` more of its decay.
  Vec3 advance(double dt);

  // The largest change of the offset from one tick to the next: what a swap adds to the change
  // of the rendered force in one tick [N].
  double largest_step() const { return largest_step_; }
  const Vec3& offset() const { return offset_; }

 private:
  double blend_s_, max_rate_;  // [s], [N/s]
  Vec3 offset_{0, 0, 0};
  double remaining_s_ = 0;
  double largest_step_ = 0;
};

}  // namespace softbody::client
