#include "engine/sim/xpbd_constraints.h"

#include <cmath>
#include <stdexcept>

#include "engine/forces/element_models.h"
#include "engine/forces/hyperelastic.h"

namespace softbody {
namespace {

// Below this |F - R| or |E| the deviatoric constraint's direction is round-off.
constexpr double kSingularDeviation = 1e-12;

template <typename Kernel>
bool is(const ForceModel& forces) {
  return dynamic_cast<const ElementModel<Kernel>*>(&forces) != nullptr;
}

}  // namespace

XpbdMaterial xpbd_material(const ForceModel& forces, const Material& material) {
  const double lambda = material.lambda(), mu = material.mu();
  XpbdMaterial m;
  if (is<SnhKernel>(forces)) {
    m.law = XpbdLaw::kSnh;
    m.k_deviatoric = mu;
    m.k_volumetric = lambda + mu;
    m.volumetric_rest = 1 + mu / m.k_volumetric;
  } else if (is<ClampedNeoHookeanKernel>(forces)) {
    m.law = XpbdLaw::kCnh;
    if (!(lambda > 0))
      throw std::invalid_argument(
          "integrator 'xpbd' needs lambda > 0 (Poisson's ratio > 0) for cnh: its volumetric "
          "constraint's compliance is 1 / lambda");
    m.k_deviatoric = mu;
    m.k_volumetric = lambda;
    m.volumetric_rest = mu / lambda;
    m.cnh_threshold = material.cnh_threshold;
  } else if (is<CorotationalKernel>(forces) || is<StvkTotalLagrangianKernel>(forces)) {
    m.law = is<CorotationalKernel>(forces) ? XpbdLaw::kCorotational : XpbdLaw::kStvk;
    if (!(lambda > 0))
      throw std::invalid_argument(
          "integrator 'xpbd' needs lambda > 0 (Poisson's ratio > 0): the volumetric "
          "constraint's compliance is 1 / lambda");
    m.k_deviatoric = 2 * mu;
    m.k_volumetric = lambda;
  } else {
    throw std::invalid_argument(
        "integrator 'xpbd' needs a material whose energy is a sum of squared constraints per "
        "tetrahedron (snh, cnh, corotational, stvk-tl) without a volumetric term or nodal "
        "pressure; '" +
        forces.name() + "' as configured is not (use vbd, projective or quasi-newton)");
  }
  return m;
}

ElementConstraints element_constraints(const XpbdMaterial& m, const Mat3& f) {
  ElementConstraints c;
  switch (m.law) {
    case XpbdLaw::kSnh:
    case XpbdLaw::kCnh: {
      const double norm = f.norm();
      c.value[0] = norm;
      c.gradient[0] = norm > 0 ? Mat3(f / norm) : Mat3::Zero();
      const double j = f.determinant();
      if (m.law == XpbdLaw::kSnh) {
        c.value[1] = j - m.volumetric_rest;
        c.gradient[1] = cofactor(f);
      } else {
        double l, dl, ddl;
        log_j(j, l, dl, ddl, m.cnh_threshold);
        c.value[1] = l - m.volumetric_rest;
        c.gradient[1] = dl * cofactor(f);
      }
      break;
    }
    case XpbdLaw::kCorotational: {
      Mat3 r, s;
      polar_decomposition(f, r, s);
      const Mat3 deviation = f - r;
      const double norm = deviation.norm();
      c.value[0] = norm;
      // d|F - R|/dF = (F - R)/|F - R|: R's change is a rotation, orthogonal to F - R = R (S - I).
      c.gradient[0] = norm > kSingularDeviation ? Mat3(deviation / norm) : Mat3::Zero();
      c.value[1] = s.trace() - 3;
      c.gradient[1] = r;  // d tr(R^T F)/dF; R's change again drops out
      break;
    }
    case XpbdLaw::kStvk: {
      const Mat3 e = 0.5 * (f.transpose() * f - Mat3::Identity());
      const double norm = e.norm();
      c.value[0] = norm;
      c.gradient[0] = norm > kSingularDeviation ? Mat3(f * e / norm) : Mat3::Zero();
      c.value[1] = e.trace();
      c.gradient[1] = f;
      break;
    }
  }
  return c;
}

double constraint_energy_density(const XpbdMaterial& m, const Mat3& f) {
  const ElementConstraints c = element_constraints(m, f);
  return 0.5 *
         (m.k_deviatoric * c.value[0] * c.value[0] + m.k_volumetric * c.value[1] * c.value[1]);
}

}  // namespace softbody
