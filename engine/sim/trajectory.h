// Scripted motion of obstacles and anchor points: constant, keyframes (linear or Catmull-Rom
// interpolation), or piecewise formulas in t such as seed 000 eq. 34 (evaluated with muparser).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/types.h"

namespace softbody {

class Trajectory {
 public:
  virtual ~Trajectory() = default;
  virtual Vec3 position(double t) const = 0;
  // Default: central difference of position (formulas); keyframes override it analytically.
  virtual Vec3 velocity(double t) const;
  // True when the position never changes (clients then draw it once instead of every frame).
  virtual bool still() const { return false; }
};

std::unique_ptr<Trajectory> make_constant_trajectory(const Vec3& position);
// A point held at `position` that reports `velocity`: a tool pose sampled by a device, which the
// next step uses as it is (no extrapolation) while its velocity enters damping and friction.
std::unique_ptr<Trajectory> make_sampled_trajectory(const Vec3& position, const Vec3& velocity);

struct Keyframe {
  double t;
  Vec3 position;
};
enum class Interpolation { kLinear, kCubic };
// Before the first and after the last keyframe the position is held.
std::unique_ptr<Trajectory> make_keyframe_trajectory(std::vector<Keyframe> keyframes,
                                                     Interpolation interpolation);

struct FormulaPiece {
  double from, to;                      // the piece applies for from <= t < to (last: t <= to)
  std::array<std::string, 3> position;  // expressions in t
};
// `scale` multiplies the formulas' values (unit conversion). Outside all pieces the nearest end
// holds. Throws std::invalid_argument with the expression and muparser's message on a bad formula.
std::unique_ptr<Trajectory> make_formula_trajectory(std::vector<FormulaPiece> pieces, double scale);

// base + offset->position(t): an anchor that moves relative to where its vertex started.
std::unique_ptr<Trajectory> make_offset_trajectory(std::shared_ptr<const Trajectory> offset,
                                                   const Vec3& base);

}  // namespace softbody
