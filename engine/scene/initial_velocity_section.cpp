#include "engine/scene/initial_velocity_section.h"

#include "engine/sim/random_velocities.h"

namespace softbody {

Vec3Array read_initial_velocity(JsonReader& root, const Vec3Array& rest,
                                const std::vector<std::uint8_t>& fixed) {
  if (!root.has("initial_velocity")) return {};
  JsonReader r = root.object("initial_velocity");
  const double speed = r.number("random", 0, 1);
  if (!(speed >= 0)) r.fail("random", "must be >= 0");
  const int seed = r.integer("seed", 1);
  const Vec3 linear = r.vec3("linear", Vec3::Zero(), 1);
  const Vec3 angular = r.vec3("angular", Vec3::Zero(), 0);
  r.finish();
  Vec3Array v = random_velocities(rest.size(), speed, static_cast<std::uint64_t>(seed), fixed);
  Vec3 centroid = Vec3::Zero();
  for (const Vec3& x : rest) centroid += x / static_cast<double>(rest.size());
  for (size_t i = 0; i < rest.size(); ++i)
    if (fixed.empty() || !fixed[i]) v[i] += linear + angular.cross(rest[i] - centroid);
  return v;
}

}  // namespace softbody
