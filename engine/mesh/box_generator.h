// Structured box (beam) meshes: nx x ny x nz cubes, each split into six tetrahedra along its main
// diagonal (Kuhn/Freudenthal subdivision, conforming across cubes without alternation).
#pragma once

#include "engine/mesh/tet_mesh.h"

namespace softbody {

struct BoxSpec {
  int nx = 4, ny = 4, nz = 4;         // cells along each axis
  Vec3 size = Vec3(1.0, 1.0, 1.0);    // extent in metres
  Vec3 origin = Vec3(0.0, 0.0, 0.0);  // minimum corner
};

// Vertex sets "xmin", "xmax", "ymin", "ymax", "zmin", "zmax" hold the vertices on each face.
TetMesh make_box_mesh(const BoxSpec& spec);

}  // namespace softbody
