// Element quality and mesh summary statistics.
#pragma once

#include "engine/mesh/tet_mesh.h"

namespace softbody {

// Normalized volume-to-edge ratio q = 6*sqrt(2)*V / l_rms^3: 1 for a regular tetrahedron, -> 0 for
// slivers and needles, negative for inverted elements.
double tet_quality(const Vec3Array& x, const Tet& t);

struct MeshStats {
  double rest_volume = 0;
  double min_quality = 0;
  double mean_quality = 0;
  Vec3 bbox_min = Vec3::Zero();
  Vec3 bbox_max = Vec3::Zero();
};

MeshStats mesh_stats(const TetMesh& mesh);

}  // namespace softbody
