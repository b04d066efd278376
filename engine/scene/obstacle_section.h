// Scene sections of moving things: trajectories (constant, keyframes, piecewise formulas) and
// obstacles (half-spaces, plates, spheres, capsules and closed triangle meshes).
#pragma once

#include <memory>
#include <string>

#include "engine/scene/json_reader.h"
#include "engine/sim/external_forces.h"

namespace softbody {

std::shared_ptr<const Trajectory> read_trajectory(JsonReader r);
// A mesh obstacle's `file` resolves against `base_dir` (the scene's directory).
Obstacle read_obstacle(JsonReader r, const std::string& base_dir);

}  // namespace softbody
