// Time-domain passivity (Hannaford & Ryu, IEEE T-RO 2002; Ryu, Kwon & Hannaford 2004): the
// loop watches the energy that flows between the hand and the virtual body and never lets the
// body give back more than it took. A delayed or swapped model can otherwise return energy the
// user never put in (pressing feels weaker than releasing), which a user feels as a push that
// grows into oscillation.
//
// Observer: E(n) = -sum_k F_k . (x_{k+1} - x_k), the energy the hand has put into the
// environment, measured (F_k: the force written at tick k and held until the next; x: the tool's
// position). Hannaford & Ryu's F_k . v_k dt misses the motion's change within a tick, which
// against a light handle (0.1 kg) pushed by newtons is millijoules per press: as much as the
// delay injects. Controller: when the coming tick would make E negative (its motion predicted as
// v dt), a damping force -alpha v, alpha = -E / (|v|^2 dt) but at most `max_damping`, takes the
// excess out; a debt it cannot pay at once is paid while the hand moves. A stronger or switching
// controller (cancelling the force along the motion outright) makes a light handle chatter
// (measured: +-20 mm/s holding a press), and a discrete damper is stable only below 2 m / dt.
// Below `min_speed`, and without motion, it adds nothing: a held press feels the model's force.
#pragma once

#include "client-cpp/devices/haptic_device.h"

namespace softbody::client {

struct PassivityOptions {
  bool enabled = true;
  double max_damping = 50;   // [N s/m]
  double min_speed = 0.005;  // [m/s] below it, nothing (a tremor is not worth damping)
};

class PassivityController {
 public:
  explicit PassivityController(const PassivityOptions& options) : options_(options) {}

  // The force to render instead of `desired` with the tool at `position` moving at `velocity`,
  // for the coming `dt`. Books the energy that flowed since the last output first.
  Vec3 filter(const Vec3& desired, const Vec3& position, const Vec3& velocity, double dt);
  // The force actually written this tick (after the safety filter), at `position`.
  void record_output(const Vec3& output, const Vec3& position);

  double stored_energy() const { return energy_; }         // E(n) [J]
  double dissipated() const { return dissipated_; }        // by its damping so far [J]
  double delivered_to_user() const { return delivered_; }  // sum of F . dx, measured [J]
  long active_ticks() const { return active_ticks_; }      // ticks it added damping

 private:
  void observe(const Vec3& position);

  PassivityOptions options_;
  double energy_ = 0, dissipated_ = 0, delivered_ = 0;
  long active_ticks_ = 0;
  bool have_output_ = false;
  Vec3 last_output_{0, 0, 0}, last_position_{0, 0, 0};
};

}  // namespace softbody::client
