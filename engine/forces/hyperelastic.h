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

void neo_hookean_element(const Vec3Array& p, const Tet& tet, const TetRestGeometry& g,
                         double lambda, double mu, unsigned what, ElementContribution& c);
void mooney_rivlin_element(const Vec3Array& p, const Tet& tet, const TetRestGeometry& g,
                           double lambda, double mu, unsigned what, ElementContribution& c);
void hybrid_element(const Vec3Array& p, const Tet& tet, const TetRestGeometry& g, double lambda,
                    double mu, unsigned what, ElementContribution& c);

inline constexpr char kNeoHookeanName[] = "neo-hookean";
inline constexpr char kMooneyRivlinName[] = "mooney-rivlin";
inline constexpr char kHybridName[] = "hybrid";
using NeoHookeanKernel = KernelOf<neo_hookean_element, kNeoHookeanName>;
using MooneyRivlinKernel = KernelOf<mooney_rivlin_element, kMooneyRivlinName>;
using HybridKernel = KernelOf<hybrid_element, kHybridName>;

}  // namespace softbody
