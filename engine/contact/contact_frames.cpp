#include "engine/contact/contact_frames.h"

namespace softbody {

Mat3 contact_frame(const Vec3& normal) {
  const Vec3 n = normal.normalized();
  const Vec3 t1 = n.unitOrthogonal(), t2 = n.cross(t1);
  Mat3 c;
  c.row(0) = n.transpose();
  c.row(1) = t1.transpose();
  c.row(2) = t2.transpose();
  return c;
}

Eigen::MatrixXd reorient_compliance(const Eigen::MatrixXd& w_j, const std::vector<Mat3>& frames) {
  const auto m = static_cast<Eigen::Index>(frames.size());
  Eigen::MatrixXd w(3 * m, 3 * m);
  for (Eigen::Index k = 0; k < m; ++k) {
    const Mat3& ck = frames[static_cast<size_t>(k)];
    for (Eigen::Index l = 0; l < m; ++l)
      w.block<3, 3>(3 * k, 3 * l) =
          ck * w_j.block<3, 3>(3 * k, 3 * l) * frames[static_cast<size_t>(l)].transpose();
  }
  return w;
}

Eigen::VectorXd world_forces(const std::vector<Mat3>& frames, const Eigen::VectorXd& lambda) {
  Eigen::VectorXd f(lambda.size());
  for (size_t k = 0; k < frames.size(); ++k) {
    const auto i = 3 * static_cast<Eigen::Index>(k);
    f.segment<3>(i) = frames[k].transpose() * lambda.segment<3>(i);
  }
  return f;
}

}  // namespace softbody
