#include "codec/tool_contact.h"

#include <cstddef>

namespace softbody::codec {
namespace {

using std::size_t;

// The problem restricted to the contacts `subset` (W's rows and columns, the free motions
// `delta_free`, mu).
ContactProblem restrict_to(const ContactProblem& p, const std::vector<double>& delta_free,
                           const std::vector<size_t>& subset) {
  const size_t n = 3 * static_cast<size_t>(p.contacts), s = subset.size();
  ContactProblem r;
  r.contacts = static_cast<int>(s);
  r.w.resize(9 * s * s);
  r.delta_free.resize(3 * s);
  r.mu.resize(s);
  for (size_t i = 0; i < s; ++i) {
    r.mu[i] = p.mu[subset[i]];
    for (size_t a = 0; a < 3; ++a) {
      const size_t row = 3 * subset[i] + a;
      r.delta_free[3 * i + a] = delta_free[row];
      for (size_t j = 0; j < s; ++j)
        for (size_t b = 0; b < 3; ++b)
          r.w[(3 * i + a) * 3 * s + 3 * j + b] = p.w[row * n + 3 * subset[j] + b];
    }
  }
  return r;
}

// Solves `p` for lambda on a working set: the contacts that press (a negative free gap) or
// pressed in the warm start. A contact left out carries no force, which is its law's answer as
// long as its gap stays open under the set's forces; those whose gap the set's forces close join
// it and the set is solved again. So the answer is the full problem's, at the cost of the contacts
// that touch: a tool's problem holds every candidate it may reach before the next reply (up to 64
// on a slow link, ToolCommand.candidate_reach), most of them apart, and a solve over all of them
// cost 150 us a tick on average and up to 3 ms (dense classification and residual sweeps of
// 192 x 192), against 5 us for its dozen nearest.
// `delta_free` replaces the problem's own free motions (the tool moved): W, which a slow link's
// problem holds for 64 candidates (300 kB), is never copied.
PgsReport solve_on_working_set(const ContactProblem& p, const std::vector<double>& delta_free,
                               std::vector<double>& lambda, const PgsOptions& options) {
  const size_t m = static_cast<size_t>(p.contacts), n = 3 * m;
  if (lambda.size() != n) lambda.assign(n, 0.0);
  std::vector<char> in_set(m, 0);
  for (size_t k = 0; k < m; ++k) in_set[k] = delta_free[3 * k] < 0 || lambda[3 * k] > 0;
  // A haptic tick's cost stays bounded: no proximal point iterations (up to 10 Newton runs of
  // dense LUs each); the engine's own solve of the step has them.
  ActiveSetOptions active_set;
  active_set.proximal_iterations = 0;
  PgsReport report;
  for (size_t round = 0; round <= m; ++round) {
    std::vector<size_t> subset;
    for (size_t k = 0; k < m; ++k)
      if (in_set[k]) subset.push_back(k);
    std::vector<double> reduced(3 * subset.size());
    for (size_t i = 0; i < subset.size(); ++i)
      for (size_t a = 0; a < 3; ++a) reduced[3 * i + a] = lambda[3 * subset[i] + a];
    report = subset.empty()
                 ? PgsReport{0, 0, true}
                 : solve_contact(restrict_to(p, delta_free, subset), reduced, options, active_set);
    lambda.assign(n, 0.0);
    for (size_t i = 0; i < subset.size(); ++i)
      for (size_t a = 0; a < 3; ++a) lambda[3 * subset[i] + a] = reduced[3 * i + a];
    // The normal gaps of the contacts left out, under the set's forces.
    bool grew = false;
    for (size_t k = 0; k < m; ++k) {
      if (in_set[k]) continue;
      const double* row = &p.w[3 * k * n];
      double gap = delta_free[3 * k];
      for (const size_t j : subset)
        for (size_t b = 0; b < 3; ++b) gap += row[3 * j + b] * lambda[3 * j + b];
      if (gap < 0) in_set[k] = 1, grew = true;
    }
    if (!grew) break;
  }
  return report;
}

}  // namespace

std::array<double, 3> evaluate(ToolContactModel& m, const std::array<double, 3>& position,
                               PgsReport* report) {
  std::array<double, 3> force{0, 0, 0};
  if (m.empty()) return force;
  const auto contacts = static_cast<std::size_t>(m.problem.contacts);
  std::vector<double> moved = m.problem.delta_free;
  double d[3];
  for (std::size_t c = 0; c < 3; ++c) d[c] = position[c] - m.reference_position[c];
  for (std::size_t k = 0; k < contacts; ++k)
    for (std::size_t r = 0; r < 3; ++r) {
      const double* row = &m.frames[9 * k + 3 * r];
      moved[3 * k + r] -= row[0] * d[0] + row[1] * d[1] + row[2] * d[2];
    }
  const PgsReport solved = solve_on_working_set(m.problem, moved, m.lambda, PgsOptions{200, 1e-9});
  if (report) *report = solved;
  // The body feels C_k^T lambda_k at each contact; the tool the opposite.
  for (std::size_t k = 0; k < contacts; ++k)
    for (std::size_t r = 0; r < 3; ++r)
      for (std::size_t c = 0; c < 3; ++c)
        force[c] -= m.frames[9 * k + 3 * r + c] * m.lambda[3 * k + r];
  return force;
}

}  // namespace softbody::codec
