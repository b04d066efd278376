// Parallel evaluation must give bit-identical results to single-threaded evaluation: every loop is
// either a gather or runs over colour classes, and reductions use a fixed chunking.
#include <gtest/gtest.h>

#include "engine/forces/force_model.h"
#include "engine/forces/verification.h"
#include "engine/mesh/validation.h"
#include "engine/parallel/parallel.h"
#include "engine/tests/test_support.h"

namespace softbody {
namespace {

TEST(Parallel, ResultsDoNotDependOnTheThreadCount) {
  TetMesh mesh = load_mesh(test::test_mesh("bunny.mesh")).mesh;
  auto topo = std::make_shared<const MeshTopology>(mesh);
  Vec3Array p = random_smooth_deformation(mesh.vertices, 0.3, 9);
  for (const std::string& name : force_model_names()) {
    auto model =
        make_force_model(name, topo, mesh.vertices, Material{1e5, 0.4}, VolumetricKind::kQuadratic);
    set_num_threads(1);
    ForceOutput serial = model->evaluate(p);
    set_num_threads(3);  // more threads than this machine's cores is fine: results must not change
    ForceOutput parallel;
    {
      EveryLoopParallel every_loop;  // the short loops too
      parallel = model->evaluate(p);
    }
    set_num_threads(0);
    EXPECT_EQ(serial.energy, parallel.energy) << name;
    EXPECT_EQ(serial.f, parallel.f) << name;
    EXPECT_EQ(serial.K.vertex_blocks, parallel.K.vertex_blocks) << name;
    EXPECT_EQ(serial.K.edge_blocks, parallel.K.edge_blocks) << name;
  }
}

}  // namespace
}  // namespace softbody
