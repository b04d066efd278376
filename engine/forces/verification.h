// Numerical verification of force models: finite-difference checks of f against the energy and of
// K against f, and comparison of two models. Used by `softbody-sim check` and the tests.
#pragma once

#include "engine/forces/force_model.h"

namespace softbody {

// p = R (x + u(x)) + t: a smooth random displacement u (sum of sines over the bounding box, peak
// amplitude `scale` times the bounding-box diagonal) followed by a rigid rotation of about 2 rad
// about a random axis and a translation. Reproducible for a given seed.
Vec3Array random_smooth_deformation(const Vec3Array& rest, double scale, unsigned seed);

// Same as above without the smooth part: a pure rigid motion of the rest shape.
Vec3Array random_rigid_motion(const Vec3Array& rest, unsigned seed);

struct FiniteDifferenceOptions {
  int directions = 6;  // random perturbation directions
  // Relative to the bounding-box diagonal. Small, because the cubic volumetric penalty is only C2
  // at theta = 0: a slender element crossing it within the step costs first-order accuracy.
  double step = 1e-8;
  unsigned seed = 7;
};

// max over directions d of |d.f - (W(p+hd) - W(p-hd))/2h| / (|f| |d|).
double force_vs_energy_error(const ForceModel& model, const Vec3Array& p,
                             const FiniteDifferenceOptions& options = {});
// max over directions d of |K d - (f(p+hd) - f(p-hd))/2h| / |K d|.
double stiffness_vs_force_error(const ForceModel& model, const Vec3Array& p,
                                const FiniteDifferenceOptions& options = {});

struct ModelDifference {
  double forces;     // |f_a - f_b| / |f_b|
  double stiffness;  // |K_a - K_b|_F / |K_b|_F
  double energy;     // |W_a - W_b| / |W_b|
};
ModelDifference compare_models(const ForceModel& a, const ForceModel& b, const Vec3Array& p);

}  // namespace softbody
