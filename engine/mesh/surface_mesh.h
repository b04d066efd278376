// A triangle surface as read from a file (engine/io/surface_reader.cpp): the shape of a rigid
// tool or fixture (engine/contact/rigid_surface.h), not a simulated body.
#pragma once

#include <vector>

#include "engine/types.h"

namespace softbody {

// Vertices and faces (0-based; counter-clockwise seen from outside for an outward-wound surface).
struct SurfaceMesh {
  Vec3Array vertices;
  std::vector<Triangle> triangles;
};

}  // namespace softbody
