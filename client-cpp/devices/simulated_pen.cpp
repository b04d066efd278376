#include "client-cpp/devices/simulated_pen.h"

#include "client-cpp/devices/vector_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

namespace softbody::client {

namespace {

double parse_number(const std::string& key, const std::string& value) {
  return parse_number_text(value, "simulated pen: " + key + "=" + value);
}

Vec3 parse_vector(const std::string& key, const std::string& value) {
  return parse_vec3_text(value, "simulated pen: " + key + "=" + value);
}

// Where the hand is in its cosine profile at time t (the phase, in [0, period]) and whether it
// stands still there: holding at full depth, or done with its cycles (back at the start).
struct HandPhase {
  double phase;
  bool still;
};

HandPhase hand_phase(const ScriptedHand& h, double t) {
  if (t < h.wait) return {0, true};
  t -= h.wait;
  if (h.cycles > 0 && t > h.cycles * h.cycle()) return {0, true};
  const double in_cycle = t - std::floor(t / h.cycle()) * h.cycle();
  const double half = 0.5 * h.period;
  if (in_cycle <= half) return {in_cycle, false};
  if (in_cycle <= half + h.hold) return {half, true};
  return {in_cycle - h.hold, false};
}

}  // namespace

Vec3 ScriptedHand::position(double t) const {
  const double s = depth * 0.5 * (1 - std::cos(2 * M_PI * hand_phase(*this, t).phase / period));
  return {start[0] + s * direction[0], start[1] + s * direction[1], start[2] + s * direction[2]};
}

Vec3 ScriptedHand::velocity(double t) const {
  const HandPhase p = hand_phase(*this, t);
  if (p.still) return {0, 0, 0};
  const double ds = depth * 0.5 * (2 * M_PI / period) * std::sin(2 * M_PI * p.phase / period);
  return {ds * direction[0], ds * direction[1], ds * direction[2]};
}

SimulatedPenConfig parse_simulated_pen_config(const std::string& text) {
  SimulatedPenConfig c;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ';')) {
    if (item.empty()) continue;
    const auto eq = item.find('=');
    if (eq == std::string::npos)
      throw std::invalid_argument("simulated pen: '" + item + "': expected key=value");
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    if (key == "start")
      c.hand.start = parse_vector(key, value);
    else if (key == "direction")
      c.hand.direction = parse_vector(key, value);
    else if (key == "depth")
      c.hand.depth = parse_number(key, value);
    else if (key == "period")
      c.hand.period = parse_number(key, value);
    else if (key == "hold")
      c.hand.hold = parse_number(key, value);
    else if (key == "wait")
      c.hand.wait = parse_number(key, value);
    else if (key == "cycles")
      c.hand.cycles = static_cast<int>(parse_number(key, value));
    else if (key == "mass")
      c.dynamics.mass = parse_number(key, value);
    else if (key == "hand_stiffness")
      c.dynamics.hand_stiffness = parse_number(key, value);
    else if (key == "hand_damping")
      c.dynamics.hand_damping = parse_number(key, value);
    else if (key == "damping")
      c.dynamics.damping = parse_number(key, value);
    else
      throw std::invalid_argument("simulated pen: unknown key '" + key +
                                  "' (start, direction, depth, period, hold, wait, cycles, mass, "
                                  "hand_stiffness, hand_damping, damping)");
  }
  const Vec3& d = c.hand.direction;
  const double n = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  if (n == 0) throw std::invalid_argument("simulated pen: direction must not be zero");
  for (double& x : c.hand.direction) x /= n;
  if (!(c.hand.period > 0)) throw std::invalid_argument("simulated pen: period must be > 0");
  if (!(c.hand.hold >= 0)) throw std::invalid_argument("simulated pen: hold must be >= 0");
  if (!(c.hand.wait >= 0)) throw std::invalid_argument("simulated pen: wait must be >= 0");
  if (!(c.dynamics.mass > 0)) throw std::invalid_argument("simulated pen: mass must be > 0");
  return c;
}

SimulatedPen::SimulatedPen(const SimulatedPenConfig& config)
    : config_(config), position_(config.hand.start), hand_(config.hand.start) {}

void SimulatedPen::advance(double dt, double t) {
  const PenDynamics& d = config_.dynamics;
  hand_ = config_.hand.position(t);
  const Vec3 hand_velocity = config_.hand.velocity(t);
  for (int k = 0; k < 3; ++k) {
    const double f = d.hand_stiffness * (hand_[k] - position_[k]) +
                     d.hand_damping * (hand_velocity[k] - velocity_[k]) - d.damping * velocity_[k] +
                     force_[k];
    velocity_[k] += dt * f / d.mass;  // semi-implicit Euler: velocity first
    position_[k] += dt * velocity_[k];
  }
}

std::string SimulatedPen::name() const {
  const ScriptedHand& h = config_.hand;
  char text[200];
  std::snprintf(text, sizeof text,
                "simulated pen pressing from (%.4g, %.4g, %.4g) along (%.3g, %.3g, %.3g) by %.4g m",
                h.start[0], h.start[1], h.start[2], h.direction[0], h.direction[1], h.direction[2],
                h.depth);
  return text;
}

DeviceState SimulatedPen::read(double time_s) {
  const double span = time_s - time_;
  if (span > 0) {
    const int n = std::max(1, static_cast<int>(std::ceil(span / config_.dynamics.max_substep)));
    const double dt = span / n;
    for (int i = 1; i <= n; ++i) advance(dt, time_ + i * dt);
    time_ = time_s;
  }
  DeviceState s;
  s.position = position_;
  s.velocity = velocity_;
  return s;
}

bool SimulatedPen::finished() const {
  return config_.hand.cycles > 0 &&
         time_ >= config_.hand.wait + config_.hand.cycles * config_.hand.cycle();
}

}  // namespace softbody::client
