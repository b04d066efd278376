// Hyperelastic element laws of seed 001 §2.5 and its hybrid strain (§3.1.3), per tetrahedron.
//
// The thesis's polyconvex family (Ciarlet and Geymonat),
//   W(F) = a tr C + b tr Cof C + c J^2 - d ln J + e,  C = F^T F, J = det F,
// with d = 2 a + 4 b + 2 c (no stress at rest), e such that W(I) = 0, and for small strains the
// linear law mu eps:eps + lambda/2 tr(eps)^2 when a + b = mu / 2 and c = lambda / 4 - b:
//  - compressible Neo-Hooke: b = 0 (a = mu / 2, c = lambda / 4, d = mu + lambda / 2);
//  - compressible Mooney-Rivlin: a = b = mu / 4 (the two shear terms share mu equally);
//    polyconvex (c >= 0) only for lambda >= mu, i.e. nu >= 0.25, so smaller nu is refused.
// ln J is continued below J = kLogContinuation by its second-order Taylor polynomial: the energy
// stays finite and twice differentiable for flat and inverted elements and its gradient pushes
// them back out (a true ln J would be undefined there).
//
// The hybrid strain: corotated linear strain for the shear, Green's for the volume,
//   W(F) = mu |S - I|^2 + lambda / 2 tr(E)^2,  F = R S,  E = (C - I) / 2,
// "the most accurate variant" of the thesis's Table 5.4 comparison.
#pragma once

#include "engine/forces/element_assembly.h"
#include "engine/forces/element_models.h"
#include "engine/forces/rest_geometry.h"

namespace softbody {

inline constexpr double kLogContinuation = 0.1;

// ln J and its first two derivatives, continued by its quadratic Taylor polynomial below j0.
void log_j(double j, double& l, double& dl, double& ddl, double j0 = kLogContinuation);
// Cof F = det(F) F^-T, dJ/dF, formed from cross products (defined for singular F too).
Mat3 cofactor(const Mat3& f);

void neo_hookean_element(const Vec3Array& p, const Tet& tet, const TetRestGeometry& g,
                         double lambda, double mu, unsigned what, ElementContribution& c);
void mooney_rivlin_element(const Vec3Array& p, const Tet& tet, const TetRestGeometry& g,
                           double lambda, double mu, unsigned what, ElementContribution& c);
void hybrid_element(const Vec3Array& p, const Tet& tet, const TetRestGeometry& g, double lambda,
                    double mu, unsigned what, ElementContribution& c);
// Stable Neo-Hookean (seed 004's list): Kim and Eberle's W = mu/2 (I_C - 3) + lambda_s/2 (J -
// alpha)^2, alpha = 1 + mu/lambda_s, lambda_s = lambda + mu; and Smith et al.'s, with the term
// -mu_s/2 ln(I_C + 1), mu_s = 4 mu / 3, lambda_s = lambda + 5 mu / 6, alpha = 1 + 3 mu_s / (4
// lambda_s). Both remap the Lame parameters so that small strains see the material's E and nu,
// and have no ln J: an inverted element keeps a finite energy that pushes it back out.
void snh_element(const Vec3Array& p, const Tet& tet, const TetRestGeometry& g, double lambda,
                 double mu, unsigned what, ElementContribution& c);
void snh_smith_element(const Vec3Array& p, const Tet& tet, const TetRestGeometry& g, double lambda,
                       double mu, unsigned what, ElementContribution& c);
// Clamped Neo-Hooke (Liu et al. 2017; seed 004's CNH): Bonet and Wood's
//   W = mu/2 (I_C - 3) - mu f(J) + lambda/2 f(J)^2,  f = ln J,
// with f continued below J0 by its quadratic Taylor polynomial, so an inverted element has a
// finite energy (J0 = Material::cnh_threshold).
void cnh_element(const Vec3Array& p, const Tet& tet, const TetRestGeometry& g, double lambda,
                 double mu, double threshold, unsigned what, ElementContribution& c);

inline constexpr char kNeoHookeanName[] = "neo-hookean";
inline constexpr char kMooneyRivlinName[] = "mooney-rivlin";
inline constexpr char kHybridName[] = "hybrid";
inline constexpr char kSnhName[] = "snh";
inline constexpr char kSnhSmithName[] = "snh-smith";
using NeoHookeanKernel = KernelOf<neo_hookean_element, kNeoHookeanName>;
using MooneyRivlinKernel = KernelOf<mooney_rivlin_element, kMooneyRivlinName>;
using HybridKernel = KernelOf<hybrid_element, kHybridName>;
using SnhKernel = KernelOf<snh_element, kSnhName>;
using SnhSmithKernel = KernelOf<snh_smith_element, kSnhSmithName>;
struct ClampedNeoHookeanKernel {
  static constexpr const char* kName = "cnh";
  double threshold;
  explicit ClampedNeoHookeanKernel(const Material& material) : threshold(material.cnh_threshold) {}
  void element(const Vec3Array& p, const Tet& tet, const TetRestGeometry& g, double lambda,
               double mu, unsigned what, ElementContribution& c) const {
    cnh_element(p, tet, g, lambda, mu, threshold, what, c);
  }
};

}  // namespace softbody
