// Force continuity at model swaps. A new model (a newer server step, or the same step's contact
// problem for a tool that moved) gives a different force at the same tool pose than the model it
// replaces: up to 1.7 N when a vertex entered contact between replies (bench/RESULTS.md), felt
// as a click, and several newtons on a slow link when a burst of replies skips many steps. At a
// swap the difference becomes an offset added to the new model's force, so the rendered force
// does not jump, and the offset falls linearly to zero over `blend_s`, but by at most `max_step`
// in one tick (a late tick included), so a large disagreement takes longer. A swap during a blend
// adds its difference and restarts it.
#pragma once

#include "client-cpp/devices/haptic_device.h"

namespace softbody::client {

class SwapBlend {
 public:
  // blend_s [s]; max_step [N] per tick (0: no limit).
  SwapBlend(double blend_s, double max_step) : blend_s_(blend_s), max_step_(max_step) {}

  // The old model's and the new model's force at the tool's pose, at the tick of the swap.
  void swap(const Vec3& before, const Vec3& after);
  // The offset to add to the model's force this tick, after `dt` more of its decay.
  Vec3 advance(double dt);

  // The largest change of the offset from one tick to the next: what a swap adds to the change
  // of the rendered force in one tick [N].
  double largest_step() const { return largest_step_; }
  const Vec3& offset() const { return offset_; }

 private:
  double blend_s_, max_step_;  // [s], [N]
  Vec3 offset_{0, 0, 0};
  double remaining_s_ = 0;
  double largest_step_ = 0;
};

}  // namespace softbody::client
