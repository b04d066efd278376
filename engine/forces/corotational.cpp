#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <Eigen/SVD>
#include <cmath>

#include "engine/forces/element_models.h"

namespace softbody {
namespace {

// Robust path: SVD with the sign of the smallest singular value moved into it for det F < 0.
void polar_by_svd(const Mat3& f, Mat3& r, Mat3& s) {
  // A square 3x3 needs no QR preconditioning.
  Eigen::JacobiSVD<Mat3, Eigen::NoQRPreconditioner> svd(f,
                                                        Eigen::ComputeFullU | Eigen::ComputeFullV);
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

}  // namespace

void polar_decomposition(const Mat3& f, Mat3& r, Mat3& s) {
  // Fast path: closed-form eigen-decomposition of F^T F = V diag(sigma^2) V^T, R = F V
  // diag(1/sigma) V^T, then one Higham step R <- (R + R^-T)/2 to restore orthogonality lost in
  // the closed form. The SVD alone cost
  // ~900 ns per element; this ~4x less. Below sigma_min/sigma_max = 1e-2 the closed form loses
  // digits that finite-difference checks of K notice, so such elements also take the SVD path.
  Eigen::SelfAdjointEigenSolver<Mat3> eigen;
  eigen.computeDirect(f.transpose() * f);
  const Vec3 lambda2 = eigen.eigenvalues();  // ascending
  if (!(lambda2[0] > 1e-4 * lambda2[2])) {
    polar_by_svd(f, r, s);
    return;
  }
  Vec3 sigma = lambda2.cwiseSqrt();
  if (f.determinant() < 0) sigma[0] = -sigma[0];  // inverted: keep R a rotation
  const Mat3& v = eigen.eigenvectors();
  r = f * v * sigma.cwiseInverse().asDiagonal() * v.transpose();
  r = 0.5 * (r + r.inverse().transpose());
  const Mat3 rt_f = r.transpose() * f;
  s = 0.5 * (rt_f + rt_f.transpose());
}

void corotational_element(const Vec3Array& p, const Tet& tet, const TetRestGeometry& g,
                          double lambda, double mu, unsigned what, ElementContribution& c) {
  corotational_element_of(deformation_gradient(p, tet, g), g, lambda, mu, what, c);
}

void corotational_element_of(const Mat3& f, const TetRestGeometry& g, double lambda, double mu,
                             unsigned what, ElementContribution& c) {
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
  // dP = 2 mu dF + lambda tr(R^T dF) R + c dR with c = lambda tr(S - I) - 2 mu, dR = R [w]x and
  // (tr(S) I - S) w = axial(R^T dF - dF^T R). For dF = e_k alpha_j^T, contracting with alpha_i
  // and collecting the columns k gives, with b_i = R alpha_i and X_i = R [alpha_i]x,
  //   K_ij = V [ 2 mu (alpha_i . alpha_j) I + lambda b_i b_j^T + c X_i M^-1 X_j^T ],
  // M = tr(S) I - S. M is singular only where two singular values of F sum to zero (a flat or
  // inverted element): the rotation is then not differentiable and its term is dropped.
  const Mat3 m = s.trace() * Mat3::Identity() - s;
  const double m_det = m.determinant();
  const bool rotation_term = std::abs(m_det) > 1e-12 * std::pow(m.norm(), 3);
  const Mat3 m_inv = rotation_term ? Mat3(m.inverse()) : Mat3::Zero();
  const double c_rot = lambda * tr - 2 * mu;
  std::array<Vec3, 4> b;
  std::array<Mat3, 4> x, y;
  for (size_t i = 0; i < 4; ++i) {
    b[i] = r * g.shape_gradient[i];
    x[i] = r * cross_matrix(g.shape_gradient[i]);
    y[i] = (c_rot * x[i]) * m_inv;
  }
  auto block = [&](size_t i, size_t j) {
    Mat3 kij = (v * lambda) * b[i] * b[j].transpose();
    kij.noalias() += v * y[i] * x[j].transpose();
    kij.diagonal().array() += v * 2 * mu * g.shape_gradient[i].dot(g.shape_gradient[j]);
    return kij;
  };
  c.set_stiffness(what, block);
}

}  // namespace softbody
