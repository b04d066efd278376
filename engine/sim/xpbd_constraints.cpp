#include "engine/sim/xpbd_constraints.h"

#include <cmath>
#include <stdexcept>

#include "engine/forces/element_models.h"
#include "engine/forces/hyperelastic.h"

namespace softbody {
namespace {

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
  double plain_f[3][3], value[2], gradient[2][3][3];
  for (size_t a = 0; a < 3; ++a)
    for (size_t b = 0; b < 3; ++b)
      plain_f[a][b] = f(static_cast<Eigen::Index>(a), static_cast<Eigen::Index>(b));
  with_law(m.law,
           [&](auto law) { constraints_of<decltype(law)::value>(m, plain_f, value, gradient); });
  ElementConstraints c;
  for (size_t k = 0; k < 2; ++k) {
    c.value[k] = value[k];
    for (size_t a = 0; a < 3; ++a)
      for (size_t b = 0; b < 3; ++b)
        c.gradient[k](static_cast<Eigen::Index>(a), static_cast<Eigen::Index>(b)) =
            gradient[k][a][b];
  }
  return c;
}

double constraint_energy_density(const XpbdMaterial& m, const Mat3& f) {
  const ElementConstraints c = element_constraints(m, f);
  return 0.5 *
         (m.k_deviatoric * c.value[0] * c.value[0] + m.k_volumetric * c.value[1] * c.value[1]);
}

}  // namespace softbody
