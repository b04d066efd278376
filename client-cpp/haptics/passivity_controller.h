// Time-domain passivity (Hannaford & Ryu, IEEE T-RO 2002; Ryu, Kwon & Hannaford 2004): the
// loop watches the energy that flows between the hand and the virtual body and never lets the
// body give back more than it took. A delayed or swapped model can otherwise return energy the
// user never put in (pressing feels weaker than releasing), which a user feels as a push that
// grows into oscillation.
//
// Observer: E(n) = -sum_k F_k . v_k dt_k, the energy the hand has put into the environment
// (F_k: the force written at tick k, v_k the tool's velocity; Hannaford & Ryu's form). An
// observer of measured displacements, F_k . (x_{k+1} - x_k), differs from it by the motion's
// change within a tick; the controller then chases that difference and makes a light handle
// chatter (measured: +-20 mm/s holding a press), so it is only reported (delivered_to_user).
// Controller: when the coming tick would make E negative, a damping force -alpha v with
// alpha = -E / (|v|^2 dt) dissipates exactly the excess. When E >= 0 before the tick, that never
// needs more than removing the force's component along the motion; a debt (the safety filter
// changed the force) is paid back by at most `max_damping` beyond that: a stiffer
// damper, switched on and off at 1 kHz against a light device handle (0.1 kg), kicks it (a
// discrete damper is stable only below m/dt) and makes the energy it meant to take.
// Without motion no energy flows and nothing is added, so a held press feels exactly the model's
// force.
#pragma once

#include "client-cpp/devices/haptic_device.h"

namespace softbody::client {

struct PassivityOptions {
  bool enabled = true;
  double max_damping = 20;  // [N s/m] beyond cancelling the force along the motion
  // Below this speed it does nothing: removing the force's component along a tremor's velocity
  // makes the handle chatter (measured: +-6 mm/s at 1 kHz holding a press), and a still hand
  // exchanges no energy worth taking.
  double min_speed = 0.005;  // [m/s]
};

class PassivityController {
 public:
  explicit PassivityController(const PassivityOptions& options) : options_(options) {}

  // The force to render instead of `desired` with the tool at `position` moving at `velocity`,
  // for the coming `dt`. Books the energy that flowed since the last output first.
  Vec3 filter(const Vec3& desired, const Vec3& position, const Vec3& velocity, double dt);
  // The force actually written this tick (after the safety filter), at `position`.
  void record_output(const Vec3& output, const Vec3& position, const Vec3& velocity, double dt);

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
