#include "engine/forces/rest_geometry.h"

#include <Eigen/LU>

namespace softbody {

std::vector<TetRestGeometry> compute_rest_geometry(const Vec3Array& rest,
                                                   const std::vector<Tet>& tets) {
  std::vector<TetRestGeometry> geometry(tets.size());
  for (size_t t = 0; t < tets.size(); ++t) {
    const Tet& tet = tets[t];
    const Vec3& x0 = rest[static_cast<size_t>(tet[0])];
    Mat3 dm;
    for (int i = 0; i < 3; ++i)
      dm.col(i) = rest[static_cast<size_t>(tet[static_cast<size_t>(i) + 1])] - x0;
    Mat3 inv = dm.inverse();
    TetRestGeometry& g = geometry[t];
    g.shape_gradient[0] = -(inv.row(0) + inv.row(1) + inv.row(2)).transpose();
    for (int i = 0; i < 3; ++i)
      g.shape_gradient[static_cast<size_t>(i) + 1] = inv.row(i).transpose();
    g.volume = dm.determinant() / 6.0;
  }
  return geometry;
}

}  // namespace softbody
