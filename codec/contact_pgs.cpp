#include "codec/contact_pgs.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "codec/contact_blocks.h"

namespace softbody::codec {
namespace {

using contact_blocks::entry;
using contact_blocks::project_disk;
using contact_blocks::project_onto_cones;
using contact_blocks::tangential_stiffness;
using std::size_t;

// The current motion of contact k's three rows: delta_free_k + sum_l W_kl lambda_l.
void block_motion(const ContactProblem& p, const std::vector<double>& lambda, size_t k,
                  double d[3]) {
  const size_t n = 3 * static_cast<size_t>(p.contacts);
  for (size_t r = 0; r < 3; ++r) {
    const double* row = &p.w[(3 * k + r) * n];
    double sum = p.delta_free[3 * k + r];
    for (size_t c = 0; c < n; ++c) sum += row[c] * lambda[c];
    d[r] = sum;
  }
}

// The projected step of one contact from motion d; returns the new multiplier in `out`.
void local_step(const ContactProblem& p, size_t k, const double lambda[3], const double d[3],
                double out[3]) {
  const double w_n = entry(p, 3 * k, 3 * k);
  out[0] = std::max(0.0, lambda[0] - d[0] / w_n);
  // The tangential motion after the normal change (through the block's coupling terms).
  const double dn = out[0] - lambda[0];
  const double d1 = d[1] + entry(p, 3 * k + 1, 3 * k) * dn;
  const double d2 = d[2] + entry(p, 3 * k + 2, 3 * k) * dn;
  const double w_t = tangential_stiffness(p, k);
  out[1] = lambda[1] - d1 / w_t;
  out[2] = lambda[2] - d2 / w_t;
  project_disk(out[1], out[2], p.mu[k] * out[0]);
}

}  // namespace

PgsReport solve_contact_pgs(const ContactProblem& p, std::vector<double>& lambda,
                            const PgsOptions& options) {
  const size_t m = static_cast<size_t>(p.contacts);
  if (lambda.size() != 3 * m) lambda.assign(3 * m, 0.0);
  PgsReport report;
  project_onto_cones(p, lambda);  // a warm start must lie in the cone
  while (report.iterations < options.max_iterations) {
    ++report.iterations;
    double largest_change = 0;
    for (size_t k = 0; k < m; ++k) {
      double d[3], next[3];
      block_motion(p, lambda, k, d);
      local_step(p, k, &lambda[3 * k], d, next);
      const double w_n = entry(p, 3 * k, 3 * k), w_t = tangential_stiffness(p, k);
      largest_change =
          std::max({largest_change, std::abs(next[0] - lambda[3 * k]) * w_n,
                    std::hypot(next[1] - lambda[3 * k + 1], next[2] - lambda[3 * k + 2]) * w_t});
      for (size_t r = 0; r < 3; ++r) lambda[3 * k + r] = next[r];
    }
    if (largest_change <= options.tolerance) break;
  }
  report.residual = contact_residual(p, lambda);
  report.converged = report.residual <= options.tolerance;
  return report;
}

double contact_residual(const ContactProblem& p, const std::vector<double>& lambda) {
  double largest = 0;
  for (size_t k = 0; k < static_cast<size_t>(p.contacts); ++k) {
    double d[3], next[3];
    block_motion(p, lambda, k, d);
    local_step(p, k, &lambda[3 * k], d, next);
    largest = std::max({largest, std::abs(next[0] - lambda[3 * k]) * entry(p, 3 * k, 3 * k),
                        std::hypot(next[1] - lambda[3 * k + 1], next[2] - lambda[3 * k + 2]) *
                            tangential_stiffness(p, k)});
  }
  return largest;
}

std::vector<double> contact_motion(const ContactProblem& p, const std::vector<double>& lambda) {
  std::vector<double> delta(3 * static_cast<size_t>(p.contacts));
  for (size_t k = 0; k < static_cast<size_t>(p.contacts); ++k)
    block_motion(p, lambda, k, &delta[3 * k]);
  return delta;
}

}  // namespace softbody::codec
