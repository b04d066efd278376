#include "engine/sim/random_velocities.h"

#include <random>

namespace softbody {

Vec3Array random_velocities(size_t num_vertices, double speed, std::uint64_t seed,
                            const std::vector<std::uint8_t>& fixed) {
  // std::mt19937_64 is specified bit for bit; the uniform mapping is written out because
  // std::uniform_real_distribution's is left to the library.
  std::mt19937_64 generator(seed);
  const auto uniform = [&] {
    return static_cast<double>(generator() >> 11) * 0x1.0p-53 * 2 - 1;  // [-1, 1)
  };
  Vec3Array v(num_vertices, Vec3::Zero());
  for (size_t i = 0; i < num_vertices; ++i) {
    const Vec3 random(uniform(), uniform(), uniform());
    if (fixed.empty() || !fixed[i]) v[i] = speed * random;
  }
  return v;
}

}  // namespace softbody
