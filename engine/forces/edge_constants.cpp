#include "engine/forces/edge_constants.h"

#include "engine/mesh/topology.h"

namespace softbody {
namespace {

using Vec6 = Eigen::Matrix<double, 6, 1>;

// Column of Q_T^{-1} (eq. 17) for the edge joining local vertices i and j. From
// F^T F = -sum_{i<j} |p_i - p_j|^2 sym(alpha_i alpha_j^T) (which uses sum_i alpha_i = 0), the
// strain is E = -1/2 sum_edges zeta(E) sym(alpha_i alpha_j^T); in the Voigt order of eq. 4
// (engineering shears) this is eps = 1/2 Q^{-1} zeta with the columns below. This closed form
// avoids inverting the 6x6 matrix Q_T, which is badly conditioned for slivers.
Vec6 strain_column(const Vec3& ai, const Vec3& aj) {
  Vec6 b;
  b << -ai.x() * aj.x(), -ai.y() * aj.y(), -ai.z() * aj.z(), -(ai.x() * aj.y() + ai.y() * aj.x()),
      -(ai.y() * aj.z() + ai.z() * aj.y()), -(ai.z() * aj.x() + ai.x() * aj.z());
  return b;
}

}  // namespace

EdgeConstants tet_edge_constants(const TetRestGeometry& g, double lambda, double mu) {
  std::array<Vec6, 6> b;
  for (size_t k = 0; k < 6; ++k) {
    b[k] = strain_column(g.shape_gradient[static_cast<size_t>(kTetEdgeLocal[k][0])],
                         g.shape_gradient[static_cast<size_t>(kTetEdgeLocal[k][1])]);
  }
  // D (eq. 7) applied through its structure: lambda on the trace, 2 mu on normal and mu on
  // engineering shear components; C_T / 12 = V / 2.
  EdgeConstants l;
  for (size_t k = 0; k < 6; ++k) {
    for (size_t m = k; m < 6; ++m) {
      const Vec6& x = b[k];
      const Vec6& y = b[m];
      double trace = (x[0] + x[1] + x[2]) * (y[0] + y[1] + y[2]);
      double normal = x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
      double shear = x[3] * y[3] + x[4] * y[4] + x[5] * y[5];
      l(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(m)) =
          l(static_cast<Eigen::Index>(m), static_cast<Eigen::Index>(k)) =
              0.5 * g.volume * (lambda * trace + 2 * mu * normal + mu * shear);
    }
  }
  return l;
}

}  // namespace softbody
