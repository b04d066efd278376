// The per-tetrahedron edge constants of seed 003: L_T = (C_T/12) Q_T^-T D Q_T^-1 (eq. 19), the
// 6x6 matrix with W_T = 1/4 zeta_T^T L_T zeta_T over the tetrahedron's six local edges
// (kTetEdgeLocal order).
#pragma once

#include <Eigen/Core>

#include "engine/forces/rest_geometry.h"

namespace softbody {

using EdgeConstants = Eigen::Matrix<double, 6, 6>;

EdgeConstants tet_edge_constants(const TetRestGeometry& g, double lambda, double mu);

}  // namespace softbody
