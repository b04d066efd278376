// Line searches along a Newton direction dv from v.
// - armijo_line_search: backtracking on a merit known only by its values, such as
//   phi(a) = |G(v + a dv)|^2 / 2 (Dennis & Schnabel, Alg. A6.3.1): the first backtrack minimizes
//   the quadratic through phi(0), phi'(0), phi(1); later ones the cubic through the last two
//   trials; each new step is kept within [0.1, 0.5] of the previous one.
// - minimizing_line_search: on a potential whose slope phi'(a) = G(v + a dv).dv comes with each
//   value (Newton on the step's incremental potential, backward_euler_residual.h).
#pragma once

#include <functional>
#include <utility>

namespace softbody {

struct LineSearchResult {
  double step = 1;     // the accepted a (0 when none was found)
  double merit = 0;    // phi(step)
  int backtracks = 0;  // trials after the full step
  bool accepted = false;
};

// `merit(a)` evaluates phi at v + a dv (and leaves the solver's state at that point); phi0 =
// phi(0), slope = phi'(0) < 0. Accepts phi(a) <= phi0 + 1e-4 a slope; gives up below a = 1e-4.
LineSearchResult armijo_line_search(const std::function<double(double)>& merit, double phi0,
                                    double slope, int max_backtracks = 12);

// Takes the full step when it satisfies Armijo; otherwise brackets the root of phi' between 0
// and the full step and closes in on it (secant, regula falsi, bisection), accepting a point with
// Armijo's decrease and |phi'(a)| <= 0.5 |phi'(0)|. Why not plain backtracking: in penalty contact
// the step is piecewise quadratic, and a vertex whose Jacobian has no contact yet overshoots into
// the obstacle; backtracking then stops short of the contact at a fixed fraction, the Jacobian
// there still lacks it, and Newton crawls (measured on the default scene: 20 iterations at 0.9
// contraction). The minimizer along the line lies inside the contact, so the next Jacobian has
// it. Where phi' does not change sign (a non-convex stretch) it backtracks as Armijo's search
// does. `merit(a)` returns {phi(a), phi'(a)}; Armijo's test allows `noise` more: what round-off
// can hide in phi, so that a merit whose changes fall below it does not stall Newton near the
// answer.
LineSearchResult minimizing_line_search(
    const std::function<std::pair<double, double>(double)>& merit, double phi0, double slope,
    double noise, int max_evaluations = 16);

}  // namespace softbody
