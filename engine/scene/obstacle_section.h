// Scene sections of moving things: trajectories (constant, keyframes, piecewise formulas) and
// obstacles (half-spaces, plates, spheres, capsules with penalty contact).
#pragma once

#include <memory>

#include "engine/scene/json_reader.h"
#include "engine/sim/external_forces.h"

namespace softbody {

std::shared_ptr<const Trajectory> read_trajectory(JsonReader r);
Obstacle read_obstacle(JsonReader r);

}  // namespace softbody
