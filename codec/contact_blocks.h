// Per-contact pieces of the Signorini-Coulomb problem (codec/contact_pgs.h) shared by its
// solvers: W's entries, a contact's tangential stiffness and the projections onto its cone.
// Internal to codec/.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "codec/contact_pgs.h"

namespace softbody::codec::contact_blocks {

using std::size_t;

inline double entry(const ContactProblem& p, size_t row, size_t col) {
  return p.w[row * 3 * static_cast<size_t>(p.contacts) + col];
}

// Largest eigenvalue of the contact's tangential 2x2 block (symmetric).
inline double tangential_stiffness(const ContactProblem& p, size_t k) {
  const double a = entry(p, 3 * k + 1, 3 * k + 1), c = entry(p, 3 * k + 2, 3 * k + 2);
  const double b = 0.5 * (entry(p, 3 * k + 1, 3 * k + 2) + entry(p, 3 * k + 2, 3 * k + 1));
  return 0.5 * (a + c) + std::sqrt(0.25 * (a - c) * (a - c) + b * b);
}

// Projects (x, y) onto the disk of radius `radius`.
inline void project_disk(double& x, double& y, double radius) {
  const double norm = std::hypot(x, y);
  if (norm > radius) {
    const double s = norm > 0 ? radius / norm : 0;
    x *= s;
    y *= s;
  }
}

// Every contact's multiplier onto its friction cone (lambda_n >= 0, |lambda_t| <= mu lambda_n).
inline void project_onto_cones(const ContactProblem& p, std::vector<double>& lambda) {
  for (size_t k = 0; k < static_cast<size_t>(p.contacts); ++k)
    project_disk(lambda[3 * k + 1], lambda[3 * k + 2],
                 p.mu[k] * (lambda[3 * k] = std::max(0.0, lambda[3 * k])));
}

}  // namespace softbody::codec::contact_blocks
