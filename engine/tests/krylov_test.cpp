#include "engine/solvers/krylov.h"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <random>

#include "engine/forces/force_model.h"
#include "engine/forces/verification.h"
#include "engine/mesh/box_generator.h"

namespace softbody {
namespace {

// A = K(p) + s I for a deformed box: symmetric, and indefinite for small s.
struct TestSystem {
  TetMesh mesh = make_box_mesh({.nx = 3, .ny = 3, .nz = 3, .size = Vec3(0.3, 0.3, 0.3)});
  std::shared_ptr<const MeshTopology> topology = std::make_shared<const MeshTopology>(mesh);
  EdgeBlockMatrix a;

  TestSystem(double shift, double asymmetry, double deform) {
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

Eigen::VectorXd reference_solution(const Eigen::MatrixXd& dense, const Eigen::VectorXd& b) {
  return dense.fullPivLu().solve(b);
}

struct SolverCase {
  SolverType type;
  Preconditioner preconditioner;
};

class EverySolver : public testing::TestWithParam<SolverCase> {};

TEST_P(EverySolver, SolvesASymmetricPositiveDefiniteSystem) {
  TestSystem sys(2e4, 0.0, 0.05);
  ConstrainedBlockOperator op(*sys.topology, sys.a, {});
  Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(op.size(), -1, 2);
  Eigen::VectorXd x = Eigen::VectorXd::Zero(op.size());
  SolveReport r = solve(op, b, x,
                        {.type = GetParam().type,
                         .preconditioner = GetParam().preconditioner,
                         .tolerance = 1e-10,
                         .max_iterations = 2000});
  EXPECT_EQ(r.reason, StopReason::kConverged) << stop_reason_name(r.reason);
  Eigen::VectorXd expected = reference_solution(sys.a.to_dense(*sys.topology), b);
  EXPECT_LT((x - expected).norm(), 1e-7 * expected.norm());
  EXPECT_GT(r.iterations, 0);
}

INSTANTIATE_TEST_SUITE_P(
    Solvers, EverySolver,
    testing::Values(SolverCase{SolverType::kCg, Preconditioner::kNone},
                    SolverCase{SolverType::kCg, Preconditioner::kJacobi},
                    SolverCase{SolverType::kCg, Preconditioner::kBlockJacobi},
                    SolverCase{SolverType::kBiCgStab, Preconditioner::kNone},
                    SolverCase{SolverType::kBiCgStab, Preconditioner::kBlockJacobi},
                    SolverCase{SolverType::kQmr, Preconditioner::kNone},
                    SolverCase{SolverType::kQmr, Preconditioner::kJacobi},
                    SolverCase{SolverType::kQmr, Preconditioner::kBlockJacobi}));

TEST(Qmr, SolvesNonSymmetricIndefiniteSystems) {
  TestSystem sys(-3e3, 2e3, 0.3);
  Eigen::MatrixXd dense = sys.a.to_dense(*sys.topology);
  Eigen::VectorXcd eig = dense.eigenvalues();
  ASSERT_LT(eig.real().minCoeff(), 0);  // indefinite
  ASSERT_GT(eig.real().maxCoeff(), 0);
  ConstrainedBlockOperator op(*sys.topology, sys.a, {});
  Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(op.size(), 1, 3);
  Eigen::VectorXd x = Eigen::VectorXd::Zero(op.size());
  SolveReport r =
      solve(op, b, x, {.type = SolverType::kQmr, .tolerance = 1e-9, .max_iterations = 5000});
  EXPECT_EQ(r.reason, StopReason::kConverged);
  Eigen::VectorXd expected = reference_solution(dense, b);
  EXPECT_LT((x - expected).norm(), 1e-5 * expected.norm());
  // The residual the solver reports is the true one.
  EXPECT_NEAR((b - dense * x).norm() / b.norm(), r.relative_residual, 1e-8);
}

TEST(Krylov, TransposeProductMatchesTheDenseTranspose) {
  TestSystem sys(10.0, 50.0, 0.2);
  std::vector<std::uint8_t> fixed(static_cast<size_t>(sys.topology->num_vertices()), 0);
  fixed[3] = fixed[10] = 1;
  ConstrainedBlockOperator op(*sys.topology, sys.a, fixed);
  Eigen::MatrixXd dense(op.size(), op.size()), dense_t(op.size(), op.size());
  Eigen::VectorXd e = Eigen::VectorXd::Zero(op.size()), col;
  for (Eigen::Index i = 0; i < op.size(); ++i) {
    e.setZero();
    e[i] = 1;
    op.apply(e, col);
    dense.col(i) = col;
    op.apply_transpose(e, col);
    dense_t.col(i) = col;
  }
  EXPECT_LT((dense.transpose() - dense_t).norm(), 1e-12 * dense.norm());
}

TEST(Krylov, FixedVerticesKeepTheirPrescribedValue) {
  TestSystem sys(2e4, 0.0, 0.05);
  std::vector<std::uint8_t> fixed(static_cast<size_t>(sys.topology->num_vertices()), 0);
  for (Index v : sys.mesh.vertex_sets.at("xmin")) fixed[static_cast<size_t>(v)] = 1;
  ConstrainedBlockOperator op(*sys.topology, sys.a, fixed);
  Eigen::VectorXd b = Eigen::VectorXd::Ones(op.size());
  for (Index v : sys.mesh.vertex_sets.at("xmin")) b.segment<3>(3 * v) = Vec3(0.5, -0.25, 0);
  for (SolverType type : {SolverType::kCg, SolverType::kBiCgStab, SolverType::kQmr}) {
    Eigen::VectorXd x = Eigen::VectorXd::Zero(op.size());
    SolveReport r = solve(op, b, x, {.type = type, .tolerance = 1e-10, .max_iterations = 2000});
    EXPECT_EQ(r.reason, StopReason::kConverged) << solver_type_name(type);
    for (Index v : sys.mesh.vertex_sets.at("xmin")) {
      EXPECT_LT((x.segment<3>(3 * v) - Vec3(0.5, -0.25, 0)).norm(), 1e-8) << solver_type_name(type);
    }
  }
}

TEST(Krylov, WarmStartAtTheSolutionNeedsNoIterations) {
  TestSystem sys(2e4, 0.0, 0.05);
  ConstrainedBlockOperator op(*sys.topology, sys.a, {});
  Eigen::VectorXd b = Eigen::VectorXd::Ones(op.size());
  Eigen::VectorXd x = reference_solution(sys.a.to_dense(*sys.topology), b);
  for (SolverType type : {SolverType::kCg, SolverType::kBiCgStab, SolverType::kQmr}) {
    Eigen::VectorXd warm = x;
    SolveReport r = solve(op, b, warm, {.type = type, .tolerance = 1e-8});
    EXPECT_EQ(r.iterations, 0) << solver_type_name(type);
    EXPECT_EQ(r.reason, StopReason::kConverged);
  }
}

TEST(Krylov, StopsOnIterationCapAndTimeBudget) {
  TestSystem sys(1.0, 0.0, 0.05);
  ConstrainedBlockOperator op(*sys.topology, sys.a, {});
  Eigen::VectorXd b = Eigen::VectorXd::Ones(op.size());
  Eigen::VectorXd x = Eigen::VectorXd::Zero(op.size());
  SolveReport r =
      solve(op, b, x, {.type = SolverType::kQmr, .tolerance = 1e-14, .max_iterations = 7});
  EXPECT_EQ(r.reason, StopReason::kMaxIterations);
  EXPECT_EQ(r.iterations, 7);
  EXPECT_EQ(r.matvecs, 1 + 2 * 7);
  x.setZero();
  r = solve(op, b, x,
            {.type = SolverType::kCg,
             .tolerance = 1e-30,
             .max_iterations = 1000000,
             .time_budget_s = 1e-9});
  EXPECT_EQ(r.reason, StopReason::kTimeBudget);
  EXPECT_LE(r.iterations, 1);
}

TEST(Krylov, ZeroRightHandSideGivesZero) {
  TestSystem sys(1.0, 0.0, 0.05);
  ConstrainedBlockOperator op(*sys.topology, sys.a, {});
  Eigen::VectorXd x = Eigen::VectorXd::Ones(op.size());
  SolveReport r = solve(op, Eigen::VectorXd::Zero(op.size()), x, {.type = SolverType::kBiCgStab});
  EXPECT_EQ(r.reason, StopReason::kConverged);
  EXPECT_EQ(x.norm(), 0.0);
}

}  // namespace
}  // namespace softbody
