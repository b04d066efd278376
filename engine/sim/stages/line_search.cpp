#include "engine/sim/stages/line_search.h"

#include <algorithm>
#include <cmath>

namespace softbody {

LineSearchResult armijo_line_search(const std::function<double(double)>& merit, double phi0,
                                    double slope, int max_backtracks) {
  constexpr double kArmijo = 1e-4, kMinStep = 1e-4;
  LineSearchResult r;
  double a = 1, phi = merit(a);
  double a_prev = 0, phi_prev = 0;
  for (;;) {
    if (std::isfinite(phi) && phi <= phi0 + kArmijo * a * slope) {
      r.step = a;
      r.merit = phi;
      r.accepted = true;
      return r;
    }
    if (r.backtracks >= max_backtracks || a < kMinStep) break;
    double next;
    if (!std::isfinite(phi)) {
      next = 0.1 * a;
    } else if (r.backtracks == 0) {
      next = -slope / (2 * (phi - phi0 - slope));  // quadratic through phi0, slope, phi(1)
    } else {
      // Cubic through phi0, slope, phi(a), phi(a_prev).
      const double r1 = phi - phi0 - slope * a, r2 = phi_prev - phi0 - slope * a_prev;
      const double c3 = (r1 / (a * a) - r2 / (a_prev * a_prev)) / (a - a_prev);
      const double c2 = (-a_prev * r1 / (a * a) + a * r2 / (a_prev * a_prev)) / (a - a_prev);
      if (c3 == 0) {
        next = -slope / (2 * c2);
      } else {
        const double disc = c2 * c2 - 3 * c3 * slope;
        next = disc < 0 ? 0.5 * a : (-c2 + std::sqrt(disc)) / (3 * c3);
      }
    }
    if (!std::isfinite(next)) next = 0.5 * a;
    next = std::clamp(next, 0.1 * a, 0.5 * a);
    a_prev = a;
    phi_prev = phi;
    a = next;
    phi = merit(a);
    ++r.backtracks;
  }
  r.step = 0;
  r.merit = phi0;
  return r;
}

}  // namespace softbody
