#include "engine/forces/hyperelastic.h"

#include <cmath>

#include "engine/forces/element_models.h"

namespace softbody {
namespace {

struct Polyconvex {
  double a, b, c, d, e;
};

Polyconvex polyconvex(double lambda, double mu, double b) {
  Polyconvex k{};
  k.b = b;
  k.a = mu / 2 - b;
  k.c = lambda / 4 - b;
  k.d = 2 * k.a + 4 * k.b + 2 * k.c;
  k.e = -(3 * k.a + 3 * k.b + k.c);
  return k;
}

}  // namespace

void log_j(double j, double& l, double& dl, double& ddl, double j0) {
  if (j >= j0) {
    l = std::log(j);
    dl = 1 / j;
    ddl = -1 / (j * j);
    return;
  }
  const double s = j - j0;
  l = std::log(j0) + s / j0 - s * s / (2 * j0 * j0);
  dl = 1 / j0 - s / (j0 * j0);
  ddl = -1 / (j0 * j0);
}

Mat3 cofactor(const Mat3& f) {
  Mat3 c;
  c.col(0) = f.col(1).cross(f.col(2));
  c.col(1) = f.col(2).cross(f.col(0));
  c.col(2) = f.col(0).cross(f.col(1));
  return c;
}

namespace {

// d Cof(F)[E_bd], the cofactor's change for a unit change of F_bd (column d of F moves by e_b):
// each cofactor column is a cross product of the other two columns of F, so column d does not
// change and the other two change by one cross product each.
Mat3 unit_cofactor_derivative(const Mat3& f, int b, int d) {
  const int d1 = (d + 1) % 3, d2 = (d + 2) % 3;
  const Vec3 e = Vec3::Unit(b);
  Mat3 r = Mat3::Zero();
  r.col(d1) = f.col(d2).cross(e);
  r.col(d2) = e.cross(f.col(d1));
  return r;
}

// Forces f_i = V P g_i and stiffness K_ij = V dP[e_b g_j^T] g_i (column b) from the first
// Piola-Kirchhoff stress P and its derivative, given as tangent(b, d) = dP[E_bd]: the stress
// change for a unit change of F_bd, which each law writes in closed form (rank-one terms mostly).
template <typename Tangent>
void assemble_from_piola(const TetRestGeometry& g, const Mat3& piola, Tangent&& tangent,
                         unsigned what, ElementContribution& c) {
  const double v = g.volume;
  if (what & kEvalForces)
    for (size_t i = 0; i < 4; ++i) c.f[i] = v * (piola * g.shape_gradient[i]);
  if (!(what & kEvalStiffness)) return;
  // w[b][d] = dP[E_bd]: the stress change for a unit change of F_bd.
  std::array<std::array<Mat3, 3>, 3> w;
  for (int b = 0; b < 3; ++b)
    for (int d = 0; d < 3; ++d) w[static_cast<size_t>(b)][static_cast<size_t>(d)] = tangent(b, d);
  // dp[j][b] = dP[e_b g_j^T], the stress change for a unit move of vertex j along b: made once
  // per (j, b), not once per block.
  std::array<std::array<Mat3, 3>, 4> dp;
  for (size_t j = 0; j < 4; ++j)
    for (size_t b = 0; b < 3; ++b) {
      const Vec3& gj = g.shape_gradient[j];
      dp[j][b] = v * (gj[0] * w[b][0] + gj[1] * w[b][1] + gj[2] * w[b][2]);
    }
  auto block = [&](size_t i, size_t j) {
    Mat3 k;
    for (size_t b = 0; b < 3; ++b)
      k.col(static_cast<Eigen::Index>(b)) = dp[j][b] * g.shape_gradient[i];
    return k;
  };
  c.set_stiffness(what, block);
}

void polyconvex_element(const Vec3Array& p, const Tet& tet, const TetRestGeometry& g,
                        const Polyconvex& k, unsigned what, ElementContribution& c) {
  const Mat3 f = deformation_gradient(p, tet, g);
  const Mat3 cauchy_green = f.transpose() * f;
  const double i1 = cauchy_green.trace();
  const Mat3 cof = cofactor(f);
  const double i2 = cof.squaredNorm();  // tr Cof C
  const double j = f.determinant();
  double l, dl, ddl;
  log_j(j, l, dl, ddl);
  c.energy = g.volume * (k.a * i1 + k.b * i2 + k.c * j * j - k.d * l + k.e);
  if (!(what & (kEvalForces | kEvalStiffness))) return;
  const double gamma1 = 2 * k.c * j - k.d * dl;  // Gamma'(J)
  const double gamma2 = 2 * k.c - k.d * ddl;     // Gamma''(J)
  const Mat3 f_c = f * cauchy_green;
  // d tr(Cof C) / dF = 2 (I1 F - F C); dJ / dF = Cof F.
  const Mat3 piola = 2 * k.a * f + 2 * k.b * (i1 * f - f_c) + gamma1 * cof;
  const Mat3 f_ft = f * f.transpose();
  // dP[dF] = 2a dF + 2b (2 (F : dF) F + I1 dF - d(F C)) + Gamma'' (Cof : dF) Cof + Gamma' dCof,
  // d(F C) = dF C + F dF^T F + F F^T dF: three rank-one terms for dF = E_bd.
  assemble_from_piola(
      g, piola,
      [&](int b, int d) {
        Mat3 r = (4 * k.b * f(b, d)) * f + (gamma2 * cof(b, d)) * cof +
                 gamma1 * unit_cofactor_derivative(f, b, d);
        r(b, d) += 2 * k.a + 2 * k.b * i1;
        r.row(b) -= 2 * k.b * cauchy_green.row(d);
        r -= (2 * k.b) * f.col(d) * f.row(b);
        r.col(d) -= 2 * k.b * f_ft.col(b);
        return r;
      },
      what, c);
}

// The stable Neo-Hookean laws (Smith et al. 2018; Kim and Eberle 2020), with their own Lame
// parameters (mu_s, lambda_s) and rest-stability offset alpha:
//   W = mu_s/2 (I_C - 3) + lambda_s/2 (J - alpha)^2 - smith * mu_s/2 ln(I_C + 1) - W(I).
// No logarithm of J: finite and smooth through J = 0, so an inverted element is pushed back out.
void stable_neo_hookean_element(const Vec3Array& p, const Tet& tet, const TetRestGeometry& g,
                                double mu_s, double lambda_s, double alpha, bool smith,
                                unsigned what, ElementContribution& c) {
  const Mat3 f = deformation_gradient(p, tet, g);
  const double i_c = f.squaredNorm();
  const double j = f.determinant();
  const double rest =
      0.5 * lambda_s * (1 - alpha) * (1 - alpha) - (smith ? 0.5 * mu_s * std::log(4.0) : 0.0);
  c.energy = g.volume * (0.5 * mu_s * (i_c - 3) + 0.5 * lambda_s * (j - alpha) * (j - alpha) -
                         (smith ? 0.5 * mu_s * std::log(i_c + 1) : 0.0) - rest);
  if (!(what & (kEvalForces | kEvalStiffness))) return;
  const Mat3 cof = cofactor(f);
  const double q = smith ? mu_s / (i_c + 1) : 0.0;  // the log term's factor
  const Mat3 piola = (mu_s - q) * f + lambda_s * (j - alpha) * cof;
  assemble_from_piola(
      g, piola,
      [&](int b, int d) {
        Mat3 r = (2 * q / (i_c + 1) * f(b, d)) * f + (lambda_s * cof(b, d)) * cof +
                 lambda_s * (j - alpha) * unit_cofactor_derivative(f, b, d);
        r(b, d) += mu_s - q;
        return r;
      },
      what, c);
}

}  // namespace

void snh_element(const Vec3Array& p, const Tet& tet, const TetRestGeometry& g, double lambda,
                 double mu, unsigned what, ElementContribution& c) {
  // Kim and Eberle: lambda_s = lambda + mu makes the small-strain law the material's.
  const double lambda_s = lambda + mu;
  stable_neo_hookean_element(p, tet, g, mu, lambda_s, 1 + mu / lambda_s, false, what, c);
}

void snh_smith_element(const Vec3Array& p, const Tet& tet, const TetRestGeometry& g, double lambda,
                       double mu, unsigned what, ElementContribution& c) {
  // Smith et al.'s mapping: mu_s = 4 mu / 3, lambda_s = lambda + 5 mu / 6.
  const double mu_s = 4 * mu / 3, lambda_s = lambda + 5 * mu / 6;
  stable_neo_hookean_element(p, tet, g, mu_s, lambda_s, 1 + 3 * mu_s / (4 * lambda_s), true, what,
                             c);
}

void cnh_element(const Vec3Array& p, const Tet& tet, const TetRestGeometry& g, double lambda,
                 double mu, double threshold, unsigned what, ElementContribution& c) {
  const Mat3 f = deformation_gradient(p, tet, g);
  const double i_c = f.squaredNorm();
  double l, dl, ddl;
  log_j(f.determinant(), l, dl, ddl, threshold);
  c.energy = g.volume * (0.5 * mu * (i_c - 3) - mu * l + 0.5 * lambda * l * l);
  if (!(what & (kEvalForces | kEvalStiffness))) return;
  const Mat3 cof = cofactor(f);
  // dW/dJ = (lambda f - mu) f'; d2W/dJ2 = lambda f'^2 + (lambda f - mu) f''.
  const double w1 = (lambda * l - mu) * dl, w2 = lambda * dl * dl + (lambda * l - mu) * ddl;
  assemble_from_piola(
      g, Mat3(mu * f + w1 * cof),
      [&](int b, int d) {
        Mat3 r = (w2 * cof(b, d)) * cof + w1 * unit_cofactor_derivative(f, b, d);
        r(b, d) += mu;
        return r;
      },
      what, c);
}

void neo_hookean_element(const Vec3Array& p, const Tet& tet, const TetRestGeometry& g,
                         double lambda, double mu, unsigned what, ElementContribution& c) {
  polyconvex_element(p, tet, g, polyconvex(lambda, mu, 0), what, c);
}

void mooney_rivlin_element(const Vec3Array& p, const Tet& tet, const TetRestGeometry& g,
                           double lambda, double mu, unsigned what, ElementContribution& c) {
  polyconvex_element(p, tet, g, polyconvex(lambda, mu, mu / 4), what, c);
}

void hybrid_element(const Vec3Array& p, const Tet& tet, const TetRestGeometry& g, double lambda,
                    double mu, unsigned what, ElementContribution& c) {
  // The corotated shear is the corotational law without lambda; Green's volume is added.
  const Mat3 f = deformation_gradient(p, tet, g);
  corotational_element_of(f, g, 0, mu, what, c);
  const double tr_e = 0.5 * ((f.transpose() * f).trace() - 3);
  c.energy += g.volume * 0.5 * lambda * tr_e * tr_e;
  if (!(what & (kEvalForces | kEvalStiffness))) return;
  ElementContribution volume;
  volume.vertex = c.vertex;
  // P = lambda tr(E) F; dP = lambda (F : dF) F + lambda tr(E) dF.
  assemble_from_piola(
      g, lambda * tr_e * f,
      [&](int b, int d) {
        Mat3 r = (lambda * f(b, d)) * f;
        r(b, d) += lambda * tr_e;
        return r;
      },
      what, volume);
  volume.energy = 0;
  add_contribution(volume, what, c);
}

}  // namespace softbody
