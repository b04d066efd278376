#include "engine/sim/stages/line_search.h"

#include <algorithm>
#include <cmath>
#include <tuple>

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

LineSearchResult minimizing_line_search(
    const std::function<std::pair<double, double>(double)>& merit, double phi0, double slope,
    double noise, int max_evaluations) {
  constexpr double kArmijo = 1e-4, kCurvature = 0.5, kMinStep = 1e-4;
  LineSearchResult r;
  const auto sufficient = [&](double a, double phi) {
    return std::isfinite(phi) && phi <= phi0 + kArmijo * a * slope + noise;
  };
  const auto accept = [&r](double a, double phi) {
    r.step = a;
    r.merit = phi;
    r.accepted = true;
    return r;
  };
  double a = 1;
  auto [phi, dphi] = merit(a);
  if (sufficient(a, phi)) return accept(a, phi);
  // The bracket [lo, hi]: phi'(lo) < 0 and, at hi, phi' >= 0 or no sufficient decrease. Within
  // it: the secant through the two latest points past the root where there are two (exact on a
  // piecewise quadratic's last piece: the stiff side of a contact), else regula falsi; after a
  // trial that fell short of the root, bisection, so that a secant dragged towards lo by a stiff
  // contact's huge slope cannot creep.
  double lo = 0, dlo = slope, hi = a, dhi = dphi;
  double previous_hi = 0, previous_dhi = 0;
  bool two_past = false, fell_short = false;
  for (int evaluations = 1; evaluations < max_evaluations; ++evaluations) {
    if (hi - lo < kMinStep) break;
    double next = lo + 0.5 * (hi - lo);
    if (!fell_short && std::isfinite(dhi) && dhi > 0) {
      next = lo + (hi - lo) * (-dlo) / (dhi - dlo);
      if (two_past && previous_dhi > dhi) {
        const double secant = hi - dhi * (hi - previous_hi) / (dhi - previous_dhi);
        if (secant > lo && secant < hi) next = secant;
      }
    }
    // Keep clear of the ends, so that each evaluation shrinks the bracket.
    next = std::clamp(next, lo + 0.01 * (hi - lo), hi - 0.01 * (hi - lo));
    a = next;
    std::tie(phi, dphi) = merit(a);
    ++r.backtracks;
    if (sufficient(a, phi) && std::abs(dphi) <= kCurvature * std::abs(slope)) return accept(a, phi);
    fell_short = sufficient(a, phi) && dphi < 0;
    if (fell_short) {
      lo = a;
      dlo = dphi;
    } else {
      two_past = std::isfinite(dhi) && dhi > 0 && std::isfinite(dphi) && dphi > 0;
      previous_hi = hi;
      previous_dhi = dhi;
      hi = a;
      dhi = dphi;
    }
  }
  // No point met both conditions: the best with sufficient decrease, if any (lo > 0 has it).
  if (lo > 0) return accept(lo, merit(lo).first);
  r.step = 0;
  r.merit = phi0;
  return r;
}

}  // namespace softbody
