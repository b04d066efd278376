#include <Eigen/SVD>
#include <stdexcept>

#include "engine/forces/element_models.h"

namespace softbody {
namespace {

Mat3 cross_matrix(const Vec3& w) {
  Mat3 m;
  m << 0, -w.z(), w.y(), w.z(), 0, -w.x(), -w.y(), w.x(), 0;
  return m;
}

Vec3 axial_vector(const Mat3& skew) {
  return Vec3(skew(2, 1), skew(0, 2), skew(1, 0));
}

}  // namespace

void polar_decomposition(const Mat3& f, Mat3& r, Mat3& s) {
  Eigen::JacobiSVD<Mat3> svd(f, Eigen::ComputeFullU | Eigen::ComputeFullV);
  Mat3 u = svd.matrixU(), v = svd.matrixV();
  Vec3 sigma = svd.singularValues();
  if (u.determinant() < 0) {
    u.col(2) *= -1;
    sigma[2] *= -1;
  }
  if (v.determinant() < 0) {
    v.col(2) *= -1;
    sigma[2] *= -1;
  }
  r = u * v.transpose();
  s = v * sigma.asDiagonal() * v.transpose();
}

void corotational_element(const Vec3Array& p, const Tet& tet, const TetRestGeometry& g,
                          double lambda, double mu, unsigned what, ElementContribution& c) {
  const Mat3 f = deformation_gradient(p, tet, g);
  Mat3 r, s;
  polar_decomposition(f, r, s);
  const Mat3 strain = s - Mat3::Identity();
  const double tr = strain.trace();
  const double v = g.volume;
  c.energy = v * (mu * strain.squaredNorm() + 0.5 * lambda * tr * tr);
  if (what & kEvalForces) {
    const Mat3 piola = 2 * mu * (f - r) + lambda * tr * r;
    for (size_t i = 0; i < 4; ++i) c.f[i] = v * (piola * g.shape_gradient[i]);
  }
  if (!(what & kEvalStiffness)) return;
  // dP = 2 mu dF + lambda tr(R^T dF) R + (lambda tr(S - I) - 2 mu) dR, with dR = R [w]x and
  // (tr(S) I - S) w = axial(R^T dF - dF^T R).
  Mat3 m = s.trace() * Mat3::Identity() - s;
  Eigen::FullPivLU<Mat3> m_lu(m);
  const double rotation_coef = lambda * tr - 2 * mu;
  // dP for dF = e_k alpha_j^T, contracted with alpha_i, gives column k of K_ij / V.
  auto d_piola = [&](int k, const Vec3& alpha_j) {
    Mat3 df = Mat3::Zero();
    df.row(k) = alpha_j.transpose();
    Mat3 rt_df = r.transpose() * df;
    Mat3 dp = 2 * mu * df + (lambda * rt_df.trace()) * r;
    if (m_lu.isInvertible()) {
      Vec3 omega = m_lu.solve(axial_vector(rt_df - rt_df.transpose()));
      dp += rotation_coef * (r * cross_matrix(omega));
    }
    return dp;
  };
  std::array<std::array<Mat3, 3>, 4> dp;  // dp[j][k]
  for (size_t j = 0; j < 4; ++j) {
    for (int k = 0; k < 3; ++k) dp[j][static_cast<size_t>(k)] = d_piola(k, g.shape_gradient[j]);
  }
  auto block = [&](size_t i, size_t j) {
    Mat3 kij;
    for (size_t k = 0; k < 3; ++k)
      kij.col(static_cast<Eigen::Index>(k)) = v * (dp[j][k] * g.shape_gradient[i]);
    return kij;
  };
  for (size_t i = 0; i < 4; ++i) c.diagonal[i] = block(i, i);
  for (size_t k = 0; k < 6; ++k)
    c.edge[k] =
        block(static_cast<size_t>(kTetEdgeLocal[k][0]), static_cast<size_t>(kTetEdgeLocal[k][1]));
}

CorotationalModel::CorotationalModel(std::shared_ptr<const MeshTopology> topology,
                                     const Vec3Array& rest, const Material& material)
    : ForceModel(std::move(topology)),
      geometry_(compute_rest_geometry(rest, topology_->tets())),
      coloring_(color_tets(*topology_)),
      lambda_(material.lambda()),
      mu_(material.mu()) {
  material.check();
  if (static_cast<Index>(rest.size()) != topology_->num_vertices())
    throw std::invalid_argument("rest positions do not match the mesh");
}

void CorotationalModel::evaluate(const Vec3Array& p, unsigned what, ForceWorkspace& workspace,
                                 ForceOutput& out) const {
  prepare_output(what, out);
  const auto& tets = topology_->tets();
  assemble_elements(*topology_, coloring_, what, dynamic_cast<ElementWorkspace&>(workspace), out,
                    [&](Index t, unsigned w, ElementContribution& c) {
                      corotational_element(p, tets[static_cast<size_t>(t)],
                                           geometry_[static_cast<size_t>(t)], lambda_, mu_, w, c);
                    });
}

}  // namespace softbody
