#include "engine/scene/initial_velocity_section.h"

#include <random>

namespace softbody {

Vec3Array read_initial_velocity(JsonReader& root, size_t num_vertices,
                                const std::vector<std::uint8_t>& fixed) {
  if (!root.has("initial_velocity")) return {};
  JsonReader r = root.object("initial_velocity");
  const double speed = r.number("random", 0, 1);
  if (!(speed >= 0)) r.fail("random", "must be >= 0");
  const int seed = r.integer("seed", 1);
  r.finish();
  // std::mt19937_64 is specified bit for bit; the uniform mapping is written out because
  // std::uniform_real_distribution's is left to the library.
  std::mt19937_64 generator(static_cast<std::uint64_t>(seed));
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
