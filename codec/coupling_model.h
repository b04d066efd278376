// The haptic coupling model (design guide §5) in plain arrays, shared by the server, the native
// client's 1 kHz loop and the browser: F(x, v) = F0 + dF/dx (x - x0) + dF/dv (v - v0).
#pragma once

#include <array>
#include <cmath>
#include <cstdint>

namespace softbody::codec {

using Vec3d = std::array<double, 3>;
using Mat3d = std::array<double, 9>;  // row-major

struct CouplingModel {
  Vec3d reference_position{0, 0, 0};
  Vec3d reference_velocity{0, 0, 0};
  Vec3d force{0, 0, 0};
  Mat3d dforce_dposition{};
  Mat3d dforce_dvelocity{};
  std::int64_t step = -1;
  double validity_radius = 0;
};

inline Vec3d evaluate(const CouplingModel& m, const Vec3d& position, const Vec3d& velocity) {
  Vec3d f = m.force;
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) {
      f[r] += m.dforce_dposition[3 * r + c] * (position[c] - m.reference_position[c]) +
              m.dforce_dvelocity[3 * r + c] * (velocity[c] - m.reference_velocity[c]);
    }
  }
  return f;
}

// Distance of `position` from the model's reference position.
inline double distance_from_reference(const CouplingModel& m, const Vec3d& position) {
  double d2 = 0;
  for (int k = 0; k < 3; ++k) {
    const double d = position[k] - m.reference_position[k];
    d2 += d * d;
  }
  return std::sqrt(d2);
}

}  // namespace softbody::codec
