// A scene's initial velocities: `"initial_velocity": {"random": S, "seed": N}` gives every free
// vertex a velocity with components uniform in [-S, S] (scene length units per second) from a
// seeded generator, the same on every machine: seed 004's random-velocity start, which tangles
// a body and shows what inversion handling recovers.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/scene/json_reader.h"
#include "engine/types.h"

namespace softbody {

// Empty without the key; one velocity per vertex otherwise (zero on fixed vertices): a rigid
// motion (`linear` [length/s], `angular` [rad/s] about the rest centroid) plus, with `random`,
// seeded random components.
Vec3Array read_initial_velocity(JsonReader& root, const Vec3Array& rest,
                                const std::vector<std::uint8_t>& fixed);

}  // namespace softbody
