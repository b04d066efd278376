// Seeded random velocities (seed 004's random-velocity start; scene key initial_velocity): each
// free vertex gets components uniform in [-speed, speed], the same on every machine.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/types.h"

namespace softbody {

// Zero on the vertices `fixed` flags (fixed may be empty).
Vec3Array random_velocities(size_t num_vertices, double speed, std::uint64_t seed,
                            const std::vector<std::uint8_t>& fixed);

}  // namespace softbody
