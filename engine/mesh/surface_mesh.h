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
  // For messages, where each triangle came from in its file ("line 17"; "triangle 5" of a binary
  // STL; a polygon's fan shares its line); empty: triangles are named "face N" by their order.
  std::vector<long> face_lines;
  bool faces_by_line = true;  // face_lines are lines (OBJ, ASCII STL), not triangle numbers
  // Whether vertex numbers are the file's own (OBJ's); an STL's are made by merging corners,
  // so its vertices are named by position instead.
  bool vertex_numbers_from_file = true;
};

}  // namespace softbody
