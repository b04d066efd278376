// A tool's contact problem re-solved for new tool positions (codec/tool_contact.h).
#include "codec/tool_contact.h"

#include <gtest/gtest.h>

#include <cmath>

namespace softbody::codec {
namespace {

// One contact under a tool, normal +y into the body (below the tool), compliance 1 mm/N in every
// direction, the step's gap closed by a force of 2 N; friction 0.5.
ToolContactModel one_contact() {
  ToolContactModel m;
  m.reference_position = {0, 0.01, 0};
  m.problem.contacts = 1;
  m.problem.w = {1e-3, 0, 0, 0, 1e-3, 0, 0, 0, 1e-3};
  m.problem.delta_free = {-2e-3, 0, 0};
  m.problem.mu = {0.5};
  m.frames = {0, -1, 0, 1, 0, 0, 0, 0, 1};  // n = -y: the body lies below, pushed down
  m.lambda = {2, 0, 0};
  return m;
}

TEST(ToolContact, ReSolvesTheStepsProblemForTheToolsPosition) {
  ToolContactModel m = one_contact();
  // At the stepped position: the step's force on the tool, +y (the body pushes it up).
  std::array<double, 3> f = evaluate(m, {0, 0.01, 0});
  EXPECT_NEAR(f[1], 2.0, 1e-9);
  EXPECT_NEAR(f[0], 0.0, 1e-12);
  // 1 mm deeper (down): the gap closes by 1 mm more: 3 N.
  f = evaluate(m, {0, 0.009, 0});
  EXPECT_NEAR(f[1], 3.0, 1e-9);
  // 3 mm up: out of contact.
  f = evaluate(m, {0, 0.013, 0});
  EXPECT_EQ(f, (std::array<double, 3>{0, 0, 0}));
  // Sideways by 0.5 mm at the stepped depth: friction holds (0.5 N < 0.5 x 2 N) and the tool
  // feels it against the motion.
  f = evaluate(m, {0.0005, 0.01, 0});
  EXPECT_NEAR(f[0], -0.5, 1e-9);
  // 3 mm sideways: the cone's edge, mu f_n.
  f = evaluate(m, {0.003, 0.01, 0});
  EXPECT_NEAR(f[0], -1.0, 1e-9);
  EXPECT_NEAR(f[1], 2.0, 1e-9);
}

// A slow link's problem holds many candidates, most apart; the re-solve works on those that press
// and adds any whose gap the others' forces close. Here contact 1 starts 0.5 mm apart, but W
// couples it negatively to contact 0 (pushing the body at 0 draws it towards the tool at 1), so
// it must join: the answer is the full problem's, and the far candidates carry nothing.
TEST(ToolContact, TheReSolveOnTheTouchingContactsIsTheFullProblemsAnswer) {
  ToolContactModel m;
  m.reference_position = {0, 0.01, 0};
  const int count = 6;
  m.problem.contacts = count;
  const auto n = static_cast<size_t>(3 * count);
  m.problem.w.assign(n * n, 0.0);
  for (size_t i = 0; i < n; ++i) m.problem.w[i * n + i] = 1e-3;
  m.problem.w[0 * n + 3] = m.problem.w[3 * n + 0] = -0.5e-3;  // normal rows of contacts 0 and 1
  m.problem.w[0 * n + 6] = m.problem.w[6 * n + 0] = 0.2e-3;   // contact 2: pushed away by 0
  m.problem.delta_free = std::vector<double>(n, 0.0);
  m.problem.delta_free[0] = -2e-3;
  m.problem.delta_free[3] = 0.5e-3;
  for (int k = 2; k < count; ++k) m.problem.delta_free[3 * static_cast<size_t>(k)] = 1e-3 * k;
  m.problem.mu.assign(static_cast<size_t>(count), 0.3);
  for (int k = 0; k < count; ++k) m.frames.insert(m.frames.end(), {0, -1, 0, 1, 0, 0, 0, 0, 1});
  m.lambda.assign(n, 0.0);

  ContactProblem full = m.problem;
  std::vector<double> expected;
  solve_contact(full, expected, PgsOptions{200, 1e-12});
  ASSERT_GT(expected[3], 0.1) << "contact 1 is pulled in and presses";
  PgsReport report;
  const std::array<double, 3> f = evaluate(m, {0, 0.01, 0}, &report);
  EXPECT_TRUE(report.converged);
  for (size_t i = 0; i < n; ++i) EXPECT_NEAR(m.lambda[i], expected[i], 1e-9) << i;
  for (size_t k = 2; k < static_cast<size_t>(count); ++k) EXPECT_EQ(m.lambda[3 * k], 0) << k;
  EXPECT_NEAR(f[1], expected[0] + expected[3], 1e-9);
  EXPECT_LE(contact_residual(full, m.lambda), 1e-9);
}

}  // namespace
}  // namespace softbody::codec
