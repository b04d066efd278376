// Seed 000 experiment A as a regression test: QMR with the nonlinearity correction crushes the
// knight flat and shears it without any impulsive vertex speed, and it recovers its shape after
// the plate lifts. Fixed iteration counts and one thread: deterministic.
#include <gtest/gtest.h>

#include "engine/parallel/parallel.h"
#include "engine/scene/scene.h"

namespace softbody {
namespace {

TEST(Seed000, CrushWithQmrAndCorrectionStaysCalmAndRecovers) {
  set_num_threads(1);
  Scene scene = load_scene(std::string(SOFTBODY_PROJECT_MESHES) + "/../scenes/crush.json");
  Integrator integrator(scene.model);
  SimulationState state = rest_state(*scene.model);
  const long steps = std::lround(scene.duration / scene.model->options.dt);
  double max_speed = 0, min_height = 1;
  for (long k = 0; k < steps; ++k) {
    StepStats s = integrator.step(state);
    ASSERT_FALSE(s.failed) << "step " << k;
    EXPECT_LT(s.max_speed, 1.5) << "step " << k << " t=" << s.t;
    max_speed = std::max(max_speed, s.max_speed);
    double top = -1;
    for (const Vec3& p : state.p) top = std::max(top, p.y());
    min_height = std::min(min_height, top);
  }
  EXPECT_LT(min_height, 0.01);  // it really was crushed flat (rest height 150 mm)
  EXPECT_LT(shape_error(state.p, scene.model->rest), 0.02);
  set_num_threads(0);
}

}  // namespace
}  // namespace softbody
