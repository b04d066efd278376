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

// d Cof(F)[dF]: the cofactor is quadratic in F, so the central difference quotient is exact.
Mat3 cofactor_derivative(const Mat3& f, const Mat3& df) {
  return 0.5 * (cofactor(f + df) - cofactor(f - df));
}

// Forces f_i = V P alpha_i and stiffness K_ij = V dP[e_b alpha_j^T] alpha_i from the first
// Piola-Kirchhoff stress P and its derivative dP(dF), linear in dF.
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
    for (int d = 0; d < 3; ++d) {
      Mat3 unit = Mat3::Zero();
      unit(b, d) = 1;
      w[static_cast<size_t>(b)][static_cast<size_t>(d)] = tangent(unit);
    }
  auto block = [&](size_t i, size_t j) {
    Mat3 k;
    for (int b = 0; b < 3; ++b) {
      Mat3 dp = Mat3::Zero();
      for (int d = 0; d < 3; ++d)
        dp += g.shape_gradient[j][d] * w[static_cast<size_t>(b)][static_cast<size_t>(d)];
      k.col(b) = v * (dp * g.shape_gradient[i]);
    }
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
  assemble_from_piola(
      g, piola,
      [&](const Mat3& df) {
        const Mat3 dcof = cofactor_derivative(f, df);
        const Mat3 d_fc = df * cauchy_green + f * df.transpose() * f + f * f.transpose() * df;
        return Mat3(2 * k.a * df + 2 * k.b * (2 * f.cwiseProduct(df).sum() * f + i1 * df - d_fc) +
                    gamma2 * cof.cwiseProduct(df).sum() * cof + gamma1 * dcof);
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
      [&](const Mat3& df) {
        const Mat3 dcof = cofactor_derivative(f, df);
        const double f_df = f.cwiseProduct(df).sum();
        return Mat3((mu_s - q) * df + (2 * q / (i_c + 1) * f_df) * f +
                    lambda_s * cof.cwiseProduct(df).sum() * cof + lambda_s * (j - alpha) * dcof);
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
      [&](const Mat3& df) {
        const Mat3 dcof = cofactor_derivative(f, df);
        return Mat3(mu * df + w2 * cof.cwiseProduct(df).sum() * cof + w1 * dcof);
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
      [&](const Mat3& df) {
        return Mat3(lambda * f.cwiseProduct(df).sum() * f + lambda * tr_e * df);
      },
      what, volume);
  volume.energy = 0;
  add_contribution(volume, what, c);
}

}  // namespace softbody
