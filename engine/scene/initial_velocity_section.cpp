#include "engine/scene/initial_velocity_section.h"

#include "engine/sim/random_velocities.h"

namespace softbody {

Vec3Array read_initial_velocity(JsonReader& root, size_t num_vertices,
                                const std::vector<std::uint8_t>& fixed) {
  if (!root.has("initial_velocity")) return {};
  JsonReader r = root.object("initial_velocity");
  const double speed = r.number("random", 0, 1);
  if (!(speed >= 0)) r.fail("random", "must be >= 0");
  const int seed = r.integer("seed", 1);
  r.finish();
  return random_velocities(num_vertices, speed, static_cast<std::uint64_t>(seed), fixed);
}

}  // namespace softbody
