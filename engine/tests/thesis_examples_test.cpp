// The thesis's (seed 001) small examples that are tests rather than reports: Ex. 2, a sheared cube
// that must hold its pose (the thesis's corotated methods with stale rotations drift into a
// rotation there). Ex. 1 and Ex. 4 are reports (docs/validation/seed001/).
#include <gtest/gtest.h>

#include "engine/scene/scene.h"
#include "engine/sim/integrator.h"

namespace softbody {
namespace {

// A 10 cm cube, bottom fixed, top face pulled 3 cm sideways by stiff anchors and held there.
nlohmann::json sheared_cube(const std::string& model, const std::string& integrator) {
  nlohmann::json doc = nlohmann::json::parse(R"({
    "mesh": {"box": {"cells": [3, 3, 3], "size": [0.1, 0.1, 0.1]}},
    "material": {"E": 3e4, "nu": 0.4, "density": 1000},
    "damping": {"alpha": 5, "beta": 0},
    "dt": 0.02,
    "gravity": [0, 0, 0],
    "fixed": [{"set": "ymin"}],
    "anchors": [{"select": {"set": "ymax"}, "stiffness": 1e4, "damping": 10,
                 "offset": {"constant": [0.03, 0, 0]}}]
  })");
  doc["material"]["model"] = model;
  doc["integrator"]["type"] = integrator;
  return doc;
}

TEST(ThesisEx2, AShearedCubeHoldsItsPoseFor20Seconds) {
  for (const char* model : {"stvk-tl", "corotational", "neo-hookean", "hybrid"}) {
    for (const char* integrator : {"linearized-backward-euler", "bdf2"}) {
      const Scene scene = build_scene(sheared_cube(model, integrator), "t", ".");
      auto stepper = make_integrator(scene.model);
      SimulationState state = rest_state(*scene.model);
      Vec3Array at_10s;
      for (int k = 1; k <= 1000; ++k) {
        const StepStats stats = stepper->step(state);
        ASSERT_FALSE(stats.failed) << model << " " << integrator << " step " << k;
        if (k == 500) at_10s = state.p;
      }
      // Sheared: the top moved ~3 cm (the anchors give a little), the middle part way.
      double top = 0, drift = 0, speed = 0, sideways = 0;
      const auto& top_set = scene.body->mesh.vertex_sets.at("ymax");
      for (Index v : top_set)
        top += state.p[static_cast<size_t>(v)].x() - scene.model->rest[static_cast<size_t>(v)].x();
      top /= static_cast<double>(top_set.size());
      for (size_t v = 0; v < state.p.size(); ++v) {
        drift = std::max(drift, (state.p[v] - at_10s[v]).norm());
        speed = std::max(speed, state.v[v].norm());
        sideways += state.p[v].z() - scene.model->rest[v].z();
      }
      EXPECT_GT(top, 0.025) << model << " " << integrator;
      // Held: nothing moves between 10 s and 20 s, and no net turn out of the shear plane. Here
      // the top moves 29.8 mm; drift 1e-17 m (linearized) and < 2e-8 m (BDF(2), Newton to 1e-6),
      // speeds below 1e-6 m/s, a mean sideways shift of 2-4 um (the Kuhn cells' asymmetry).
      EXPECT_LT(drift, 1e-6) << model << " " << integrator;
      EXPECT_LT(speed, 1e-5) << model << " " << integrator;
      EXPECT_LT(std::abs(sideways) / static_cast<double>(state.p.size()), 1e-4)
          << model << " " << integrator;
    }
  }
}

}  // namespace
}  // namespace softbody
