// Per-tetrahedron rest-state constants shared by the element-based models: the gradients of the
// linear shape functions (alpha_T(V) of seed 003 Appendix B) and the rest volume.
#pragma once

#include "engine/mesh/tet_mesh.h"

namespace softbody {

struct TetRestGeometry {
  std::array<Vec3, 4>
      shape_gradient;  // alpha_i; the deformation gradient is F = sum_i p_i alpha_i^T
  double volume;       // rest volume V = C_T^ini / 6 (> 0 for valid meshes)
};

std::vector<TetRestGeometry> compute_rest_geometry(const Vec3Array& rest,
                                                   const std::vector<Tet>& tets);

// F of tetrahedron t at positions p, formed from edge vectors p_i - p_0 (sum_i alpha_i = 0) so that
// a large common translation of the vertices does not cost accuracy in small elements.
inline Mat3 deformation_gradient(const Vec3Array& p, const Tet& t, const TetRestGeometry& g) {
  const Vec3& p0 = p[static_cast<size_t>(t[0])];
  Mat3 f = (p[static_cast<size_t>(t[1])] - p0) * g.shape_gradient[1].transpose();
  f.noalias() += (p[static_cast<size_t>(t[2])] - p0) * g.shape_gradient[2].transpose();
  f.noalias() += (p[static_cast<size_t>(t[3])] - p0) * g.shape_gradient[3].transpose();
  return f;
}

}  // namespace softbody
