// A simulated pen-type haptic device for tests, load runs and demos without hardware. The pen is a
// point mass with damping, held by a scripted hand through a spring-damper; the force the loop
// renders acts on the pen, so contact pushes the pen back as it would push a user's real device.
#pragma once

#include <string>

#include "client-cpp/devices/haptic_device.h"

namespace softbody::client {

// The hand moves from `start` along `direction` (unit) to `depth` and back every `period`
// (smooth cosine profile), staying `hold` seconds at the deepest point, `cycles` times (0:
// forever). A cycle lasts period + hold.
struct ScriptedHand {
  Vec3 start{0, 0, 0};
  Vec3 direction{0, -1, 0};
  double depth = 0.02;  // [m]
  double period = 4;    // [s]
  double hold = 0;      // [s]
  double wait = 0;      // [s] at the start before the first cycle (a hand that hovers first)
  int cycles = 0;

  double cycle() const { return period + hold; }
  Vec3 position(double t) const;
  Vec3 velocity(double t) const;
};

struct PenDynamics {
  double mass = 0.1;            // [kg]
  double hand_stiffness = 400;  // [N/m] spring from hand to pen
  double hand_damping = 6;      // [N s/m]
  double damping = 0.5;         // [N s/m] the device's own friction
  double max_substep = 2.5e-4;  // [s] integration substep
};

struct SimulatedPenConfig {
  ScriptedHand hand;
  PenDynamics dynamics;
};

// Parses "key=value;key=value" with keys start, direction (x,y,z), depth, period, hold, wait,
// cycles, mass, hand_stiffness, hand_damping, damping. Throws std::invalid_argument naming the bad
// key or value.
SimulatedPenConfig parse_simulated_pen_config(const std::string& text);

class SimulatedPen : public HapticDevice {
 public:
  explicit SimulatedPen(const SimulatedPenConfig& config);

  std::string name() const override;  // "simulated pen pressing from (x, y, z) along (...)"
  DeviceState read(double time_s) override;
  void write_force(const Vec3& force, double /*time_s*/) override { force_ = force; }
  bool finished() const override;

  const Vec3& hand_position() const { return hand_; }

 private:
  void advance(double dt, double t);

  SimulatedPenConfig config_;
  Vec3 position_, velocity_{0, 0, 0}, force_{0, 0, 0}, hand_;
  double time_ = 0;
};

}  // namespace softbody::client
