// Element quality and mesh summary statistics.
#pragma once

#include <string>

#include "engine/mesh/tet_mesh.h"

namespace softbody {

// Normalized volume-to-edge ratio q = 6*sqrt(2)*V / l_rms^3: 1 for a regular tetrahedron, -> 0 for
// slivers and needles, negative for inverted elements.
double tet_quality(const Vec3Array& x, const Tet& t);

// Below this quality a tetrahedron is a sliver: its height is about a thousandth of its edges, so
// a displacement of that size turns it inside out. Newton's iterates then meet forces that change
// by orders of magnitude within a step (tests/meshes/bunny.mesh: quality down to 2.4e-7, Newton
// falling back at most steps when soft; docs/solvers.md "Meshes with slivers"); the meshes that
// step well here (knight 0.029, hand 1.9e-3, octopus 0.010) have none.
inline constexpr double kSliverQuality = 1e-3;

struct MeshStats {
  double rest_volume = 0;
  double min_quality = 0;
  double mean_quality = 0;
  size_t slivers = 0;  // tetrahedra of quality below kSliverQuality
  Vec3 bbox_min = Vec3::Zero();
  Vec3 bbox_max = Vec3::Zero();
};

MeshStats mesh_stats(const TetMesh& mesh);

// What a user should hear about a mesh before simulating it (one sentence each, naming the
// figures and what to do); empty for a sound mesh. `name` names the mesh in the sentences.
std::vector<std::string> mesh_warnings(const MeshStats& stats, size_t num_tets,
                                       const std::string& name);

}  // namespace softbody
