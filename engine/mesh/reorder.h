// Renumbering a mesh for memory locality. Edge-based kernels gather data of neighbouring vertices
// and edges; with a bandwidth-reducing vertex order (reverse Cuthill-McKee) those neighbours sit
// close in memory, and the contiguous ranges that parallel loops give each thread share few
// vertices, so threads rarely pull cache lines the other has just written. Measured effect in
// bench/RESULTS.md.
#pragma once

#include "engine/mesh/tet_mesh.h"

namespace softbody {

struct MeshPermutation {
  std::vector<Index> new_of_old_vertex;
  std::vector<Index> old_of_new_vertex;
  std::vector<Index> old_of_new_tet;
};

// Renumbers vertices in reverse Cuthill-McKee order (Boost.Graph) and sorts tetrahedra by their
// lowest new vertex index; vertex sets are renumbered too. Returns the permutation applied.
MeshPermutation reorder_for_locality(TetMesh& mesh);

// p in the old numbering -> p in the new numbering.
Vec3Array permute_vertices(const Vec3Array& old_positions, const MeshPermutation& permutation);

}  // namespace softbody
