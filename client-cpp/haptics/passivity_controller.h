// Time-domain passivity (Hannaford & Ryu, IEEE T-RO 2002; Ryu, Kwon & Hannaford 2004): the
// loop watches the energy that flows between the hand and the virtual body and never lets the
// body give back more than it took. A delayed or swapped model can otherwise return energy the
// user never put in (pressing feels weaker than releasing), which a user feels as a push that
// grows into oscillation.
//
// Observer: E(n) = -sum_k F_k . v_k dt, the energy the hand has put into the environment (F: the
// force the device applies to the hand, v: the tool's velocity). Controller: when a tick would
// make E negative, a damping force -alpha v with alpha = -E / (|v|^2 dt) dissipates exactly the
// excess. When E >= 0 before the tick, that never needs more than removing the force's component
// along the motion; a debt left by the safety filter's changes is paid back with at most
// `max_force` of damping per tick. Without motion no energy flows and nothing is added, so a held
// press feels exactly the model's force.
#pragma once

#include "client-cpp/devices/haptic_device.h"

namespace softbody::client {

struct PassivityOptions {
  bool enabled = true;
  double max_force = 2;  // [N] damping beyond cancelling the force along the motion
};

class PassivityController {
 public:
  explicit PassivityController(const PassivityOptions& options) : options_(options) {}

  // The force to render instead of `desired` at tool velocity `velocity`, for the coming `dt`.
  Vec3 filter(const Vec3& desired, const Vec3& velocity, double dt);
  // Books the force actually written (after the safety filter) into the observer.
  void record_output(const Vec3& output, const Vec3& velocity, double dt);

  double stored_energy() const { return energy_; }         // E(n) [J]
  double dissipated() const { return dissipated_; }        // by its damping so far [J]
  double delivered_to_user() const { return delivered_; }  // sum of F . v dt [J]
  long active_ticks() const { return active_ticks_; }      // ticks it added damping

 private:
  PassivityOptions options_;
  double energy_ = 0, dissipated_ = 0, delivered_ = 0;
  long active_ticks_ = 0;
};

}  // namespace softbody::client
