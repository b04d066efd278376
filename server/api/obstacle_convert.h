// A scene's rigid obstacles as the API describes them for drawing (Topology.obstacles,
// StateFrame.obstacle_poses; docs/api.md, "Obstacles").
#pragma once

#include "engine/sim/external_forces.h"
#include "softbody/v1/geometry.pb.h"
#include "softbody/v1/session.pb.h"

namespace softbody::server {

// The obstacle's shape in its own frame as it is turned at t = 0, and `pose` (where it is now).
void to_proto(const Obstacle& obstacle, const ObstaclePose& pose, v1::ObstacleGeometry& out);
void to_proto(const ObstaclePose& pose, v1::Pose& out);

}  // namespace softbody::server
