#include "codec/tool_contact.h"

#include <cstddef>

namespace softbody::codec {

std::array<double, 3> evaluate(ToolContactModel& m, const std::array<double, 3>& position,
                               PgsReport* report) {
  std::array<double, 3> force{0, 0, 0};
  if (m.empty()) return force;
  const auto contacts = static_cast<std::size_t>(m.problem.contacts);
  ContactProblem moved = m.problem;
  double d[3];
  for (std::size_t c = 0; c < 3; ++c) d[c] = position[c] - m.reference_position[c];
  for (std::size_t k = 0; k < contacts; ++k)
    for (std::size_t r = 0; r < 3; ++r) {
      const double* row = &m.frames[9 * k + 3 * r];
      moved.delta_free[3 * k + r] -= row[0] * d[0] + row[1] * d[1] + row[2] * d[2];
    }
  const PgsReport solved = solve_contact(moved, m.lambda, PgsOptions{200, 1e-9});
  if (report) *report = solved;
  // The body feels C_k^T lambda_k at each contact; the tool the opposite.
  for (std::size_t k = 0; k < contacts; ++k)
    for (std::size_t r = 0; r < 3; ++r)
      for (std::size_t c = 0; c < 3; ++c)
        force[c] -= m.frames[9 * k + 3 * r + c] * m.lambda[3 * k + r];
  return force;
}

}  // namespace softbody::codec
