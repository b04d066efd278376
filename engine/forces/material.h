// Isotropic elastic material parameters and the volumetric penalty options of seeds 003 and 000.
#pragma once

#include <stdexcept>
#include <string>

namespace softbody {

struct Material {
  double youngs_modulus = 1e5;  // E [Pa]
  double poisson_ratio = 0.4;   // nu, in (-1, 0.5)
  double density = 1000.0;      // rho [kg/m^3] (used by integrators, not by force models)
  // The clamped Neo-Hooke law (cnh) only: below this J its ln J is continued by its quadratic
  // Taylor polynomial. Seed 004 says 0.5, Liu et al.'s code uses 0.1; 0.5 keeps strongly
  // compressed elements on the smooth quadratic, which is what the law is for.
  double cnh_threshold = 0.5;

  double lambda() const {
    return youngs_modulus * poisson_ratio / ((1 + poisson_ratio) * (1 - 2 * poisson_ratio));
  }
  double mu() const { return youngs_modulus / (2 * (1 + poisson_ratio)); }
  void check() const {
    if (!(youngs_modulus > 0))
      throw std::invalid_argument("material: Young's modulus E must be > 0");
    if (!(poisson_ratio > -1 && poisson_ratio < 0.5)) {
      throw std::invalid_argument("material: Poisson's ratio nu must lie in (-1, 0.5)");
    }
  }
};

// Volumetric strain energy density psi_vol(theta), theta = det(F) - 1, added per tetrahedron
// (seed 003 §4, algB_T).
enum class VolumetricKind {
  kNone,
  // psi = K_vol |min(0, theta)|^3 / 3, K_vol = E / (4 (1 - 2 nu)): acts only under compression
  // (seed 003 §5.1).
  kCubic,
  // psi = 0.1 E theta^2 / (6 (1 - 2 nu)) (seed 000 §4).
  kQuadratic,
};

inline VolumetricKind parse_volumetric_kind(const std::string& name) {
  if (name == "none") return VolumetricKind::kNone;
  if (name == "cubic") return VolumetricKind::kCubic;
  if (name == "quadratic") return VolumetricKind::kQuadratic;
  throw std::invalid_argument("unknown volumetric term '" + name + "' (none, cubic, quadratic)");
}

inline const char* volumetric_kind_name(VolumetricKind kind) {
  switch (kind) {
    case VolumetricKind::kNone:
      return "none";
    case VolumetricKind::kCubic:
      return "cubic";
    case VolumetricKind::kQuadratic:
      return "quadratic";
  }
  return "none";
}

}  // namespace softbody
