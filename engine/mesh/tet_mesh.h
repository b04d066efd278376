// A tetrahedral mesh as it comes from a file or a generator: rest positions, tetrahedra and
// named vertex sets. Topology (edges, faces, TSEPs) is derived from it by MeshTopology.
#pragma once

#include <map>
#include <string>

#include "engine/types.h"

namespace softbody {

struct TetMesh {
  Vec3Array vertices;
  std::vector<Tet> tets;
  // Named vertex selections, e.g. "xmin" from the box generator; used by scenes to fix vertices.
  std::map<std::string, std::vector<Index>> vertex_sets;

  Index num_vertices() const { return static_cast<Index>(vertices.size()); }
  Index num_tets() const { return static_cast<Index>(tets.size()); }
};

// Six times the signed volume of the tetrahedron (a, b, c, d); positive when (b-a, c-a, d-a) is
// right-handed. Seed 003 calls this C_T.
inline double six_signed_volume(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d) {
  return (b - a).dot((c - a).cross(d - a));
}

inline double six_signed_volume(const Vec3Array& x, const Tet& t) {
  return six_signed_volume(x[t[0]], x[t[1]], x[t[2]], x[t[3]]);
}

}  // namespace softbody
