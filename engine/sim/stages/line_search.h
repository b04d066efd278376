// Armijo backtracking on the merit phi(a) = |G(v + a dv)|^2 / 2 (Dennis & Schnabel, Alg. A6.3.1):
// the first backtrack minimizes the quadratic through phi(0), phi'(0), phi(1); later ones the
// cubic through the last two trials; each new step is kept within [0.1, 0.5] of the previous one.
#pragma once

#include <functional>

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

}  // namespace softbody
