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

}  // namespace
}  // namespace softbody::codec
