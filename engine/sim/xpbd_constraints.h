// The elastic laws XPBD can solve, written as compliant constraints (Macklin, Mueller and
// Chentanez 2016): per tetrahedron of rest volume V, two constraints C_k(F) with stiffness k_k per
// unit volume, whose energy V sum_k k_k C_k^2 / 2 is the law's up to a constant:
//   snh           C_D = |F|         k_D = mu     C_H = J - alpha       k_H = lambda + mu
//                 (Macklin and Mueller 2021's stable Neo-Hookean constraints; alpha = 1 + mu/k_H)
//   cnh           C_D = |F|         k_D = mu     C_H = f(J) - mu/lambda  k_H = lambda
//                 (f = ln J continued quadratically below the law's threshold J0)
//   corotational  C_D = |F - R|     k_D = 2 mu   C_H = tr(S) - 3       k_H = lambda   (F = R S)
//   stvk-tl       C_D = |E|         k_D = 2 mu   C_H = tr(E)           k_H = lambda
// Laws whose energy is not such a sum of squares (neo-hookean's -d ln J + c J^2, snh-smith's
// ln(I_C + 1), Mooney-Rivlin's, the hybrid's) and models without a per-element form are refused
// by name. The corotational and StVK constraints vanish at rest (their multipliers stay of the
// size of the deformation); the Neo-Hookean ones do not (C_D = sqrt(3) at rest, balanced by C_H),
// so XPBD carries their shear explicitly, with a stability limit (xpbd_explicit_shear_gains in
// xpbd.h; docs/solvers.md).
#pragma once

#include <array>
#include <type_traits>

#include "engine/forces/element_models.h"
#include "engine/forces/force_model.h"
#include "engine/forces/hyperelastic.h"

namespace softbody {

enum class XpbdLaw { kSnh, kCnh, kCorotational, kStvk };

// Below this |F - R| or |E| the deviatoric constraint's direction is round-off.
inline constexpr double kSingularDeviation = 1e-12;

struct XpbdMaterial {
  XpbdLaw law = XpbdLaw::kSnh;
  double k_deviatoric = 0, k_volumetric = 0;  // per unit rest volume [Pa]
  double volumetric_rest = 0;                 // snh: alpha; cnh: mu / lambda
  double cnh_threshold = 0.5;                 // cnh: J0
};

// The law of `forces` (a plain element model: no volumetric term, no nodal pressure) with the
// material's moduli. Throws std::invalid_argument naming the laws XPBD accepts.
XpbdMaterial xpbd_material(const ForceModel& forces, const Material& material);

// The element's two constraints at F and their gradients dC/dF. A deviatoric constraint whose
// gradient is undefined (|F - R| or |E| at 0: an element at rest) gets a zero gradient.
struct ElementConstraints {
  std::array<double, 2> value;
  std::array<Mat3, 2> gradient;
};
ElementConstraints element_constraints(const XpbdMaterial& material, const Mat3& f);

// f(std::integral_constant<XpbdLaw, law>{}): runs code templated on the law (constraints_of
// below), choosing it at run time once (per sweep, not per element).
template <typename F>
decltype(auto) with_law(XpbdLaw law, F&& f) {
  switch (law) {
    case XpbdLaw::kSnh:
      return f(std::integral_constant<XpbdLaw, XpbdLaw::kSnh>{});
    case XpbdLaw::kCnh:
      return f(std::integral_constant<XpbdLaw, XpbdLaw::kCnh>{});
    case XpbdLaw::kCorotational:
      return f(std::integral_constant<XpbdLaw, XpbdLaw::kCorotational>{});
    case XpbdLaw::kStvk:
      break;
  }
  return f(std::integral_constant<XpbdLaw, XpbdLaw::kStvk>{});
}

// element_constraints for a law known at compile time, on plain row-major arrays (f[a][b] = F_ab):
// XPBD's projection calls it once per element and iteration, inline (element_constraints converts).
// A deviatoric constraint at its apex (|F| = 0; |F - R| or |E| below kSingularDeviation) gets a
// zero gradient.
template <XpbdLaw kLaw>
inline void constraints_of(const XpbdMaterial& m, const double (&f)[3][3], double (&value)[2],
                           double (&gradient_f)[2][3][3]) {
  if constexpr (kLaw == XpbdLaw::kSnh || kLaw == XpbdLaw::kCnh) {
    double norm2 = 0;
    for (size_t a = 0; a < 3; ++a)
      for (size_t b = 0; b < 3; ++b) norm2 += f[a][b] * f[a][b];
    const double norm = std::sqrt(norm2);
    const double inverse_norm = norm > 0 ? 1 / norm : 0;
    // Cof F, dJ/dF: cross products of F's columns.
    double cof[3][3];
    for (size_t b = 0; b < 3; ++b) {
      const size_t c1 = (b + 1) % 3, c2 = (b + 2) % 3;
      for (size_t a = 0; a < 3; ++a) {
        const size_t r1 = (a + 1) % 3, r2 = (a + 2) % 3;
        cof[a][b] = f[r1][c1] * f[r2][c2] - f[r2][c1] * f[r1][c2];
      }
    }
    const double det = f[0][0] * cof[0][0] + f[1][0] * cof[1][0] + f[2][0] * cof[2][0];
    double volumetric_scale = 1;
    value[0] = norm;
    if constexpr (kLaw == XpbdLaw::kSnh) {
      value[1] = det - m.volumetric_rest;
    } else {
      double l, dl, ddl;
      log_j(det, l, dl, ddl, m.cnh_threshold);
      value[1] = l - m.volumetric_rest;
      volumetric_scale = dl;
    }
    for (size_t a = 0; a < 3; ++a)
      for (size_t b = 0; b < 3; ++b) {
        gradient_f[0][a][b] = f[a][b] * inverse_norm;
        gradient_f[1][a][b] = cof[a][b] * volumetric_scale;
      }
  } else if constexpr (kLaw == XpbdLaw::kStvk) {
    // E = (F^T F - I) / 2; C_D = |E| with gradient F E / |E|, C_H = tr E with gradient F.
    double green[3][3];
    double norm2 = 0, trace = 0;
    for (size_t a = 0; a < 3; ++a)
      for (size_t b = 0; b < 3; ++b) {
        green[a][b] = 0.5 * (f[0][a] * f[0][b] + f[1][a] * f[1][b] + f[2][a] * f[2][b] -
                             (a == b ? 1.0 : 0.0));
        norm2 += green[a][b] * green[a][b];
      }
    for (size_t a = 0; a < 3; ++a) trace += green[a][a];
    const double norm = std::sqrt(norm2);
    const double inverse_norm = norm > kSingularDeviation ? 1 / norm : 0;
    value[0] = norm;
    value[1] = trace;
    for (size_t a = 0; a < 3; ++a)
      for (size_t b = 0; b < 3; ++b) {
        gradient_f[0][a][b] =
            (f[a][0] * green[0][b] + f[a][1] * green[1][b] + f[a][2] * green[2][b]) * inverse_norm;
        gradient_f[1][a][b] = f[a][b];
      }
  } else {
    Mat3 deformation;
    for (size_t a = 0; a < 3; ++a)
      for (size_t b = 0; b < 3; ++b)
        deformation(static_cast<Eigen::Index>(a), static_cast<Eigen::Index>(b)) = f[a][b];
    Mat3 r, s;
    polar_decomposition(deformation, r, s);
    const Mat3 deviation = deformation - r;
    const double norm = deviation.norm();
    const double inverse_norm = norm > kSingularDeviation ? 1 / norm : 0;
    value[0] = norm;
    value[1] = s.trace() - 3;
    // d|F - R|/dF = (F - R)/|F - R| and d tr(S)/dF = d tr(R^T F)/dF = R: R's change is a
    // rotation, orthogonal to F - R = R (S - I), and drops out of both.
    for (size_t a = 0; a < 3; ++a)
      for (size_t b = 0; b < 3; ++b) {
        const auto row = static_cast<Eigen::Index>(a), col = static_cast<Eigen::Index>(b);
        gradient_f[0][a][b] = deviation(row, col) * inverse_norm;
        gradient_f[1][a][b] = r(row, col);
      }
  }
}

// sum_k k_k C_k(F)^2 / 2: the law's energy density up to a constant.
double constraint_energy_density(const XpbdMaterial& material, const Mat3& f);

}  // namespace softbody
