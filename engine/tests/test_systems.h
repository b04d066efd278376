// Step-like linear systems for the solver tests: A = K(p) + s I for a deformed box (symmetric,
// indefinite for small s), optionally with non-symmetric vertex blocks like friction Jacobians.
#pragma once

#include <random>

#include "engine/forces/force_model.h"
#include "engine/forces/verification.h"
#include "engine/mesh/box_generator.h"
#include "engine/solvers/linear_operator.h"

namespace softbody::test {

struct TestSystem {
  TetMesh mesh;
  std::shared_ptr<const MeshTopology> topology;
  EdgeBlockMatrix a;

  TestSystem(double shift, double asymmetry, double deform, int cells = 3)
      : mesh(make_box_mesh({.nx = cells, .ny = cells, .nz = cells, .size = Vec3(0.3, 0.3, 0.3)})),
        topology(std::make_shared<const MeshTopology>(mesh)) {
    auto model = make_force_model("stvk-edge", topology, mesh.vertices, Material{1e5, 0.4});
    a = model->evaluate(random_smooth_deformation(mesh.vertices, deform, 3)).K;
    std::mt19937 rng(1);
    std::uniform_real_distribution<double> u(-1, 1);
    for (Mat3& d : a.vertex_blocks) {
      d.diagonal().array() += shift;
      d(0, 1) += asymmetry * u(rng);  // non-symmetric diagonal blocks, like friction Jacobians
    }
  }
};

// The operator as a dense matrix, column by column (small systems only).
inline Eigen::MatrixXd dense_operator(const LinearOperator& op) {
  const Eigen::Index n = op.size();
  Eigen::MatrixXd a(n, n);
  Eigen::VectorXd e = Eigen::VectorXd::Zero(n), col;
  for (Eigen::Index i = 0; i < n; ++i) {
    e.setZero();
    e[i] = 1;
    op.apply(e, col);
    a.col(i) = col;
  }
  return a;
}

}  // namespace softbody::test
