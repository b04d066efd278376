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
// size of the deformation); the Neo-Hookean ones do not (C_D = sqrt(3) at rest, balanced by C_H):
// see docs/solvers.md on what that costs XPBD's accuracy.
#pragma once

#include <array>

#include "engine/forces/force_model.h"

namespace softbody {

enum class XpbdLaw { kSnh, kCnh, kCorotational, kStvk };

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

// sum_k k_k C_k(F)^2 / 2: the law's energy density up to a constant.
double constraint_energy_density(const XpbdMaterial& material, const Mat3& f);

}  // namespace softbody
