// Contact frames C_k = [n; t1; t2] (seed 002 eq. 26) and the products seed 002's fast update is
// made of: W = C W_J C^T block by block, and the proximity points' motion W_J C^T lambda.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "engine/types.h"

namespace softbody {

// Rows n, t1, t2: an orthonormal frame whose first row is the unit normal n.
Mat3 contact_frame(const Vec3& normal);

// W = C W_J C^T for block-diagonal C (one 3x3 frame per contact): 3x3 block products only.
Eigen::MatrixXd reorient_compliance(const Eigen::MatrixXd& w_j, const std::vector<Mat3>& frames);

// C^T lambda: each contact's multiplier (in its frame) as a world force.
Eigen::VectorXd world_forces(const std::vector<Mat3>& frames, const Eigen::VectorXd& lambda);

}  // namespace softbody
