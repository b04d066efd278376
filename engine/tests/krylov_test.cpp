#include "engine/solvers/krylov.h"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <random>

#include "engine/solvers/block_ssor.h"
#include "engine/tests/test_systems.h"

namespace softbody {
namespace {

using test::TestSystem;

Eigen::VectorXd reference_solution(const Eigen::MatrixXd& dense, const Eigen::VectorXd& b) {
  return dense.fullPivLu().solve(b);
}

struct SolverCase {
  SolverType type;
  PreconditionerType preconditioner;
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
    testing::Values(SolverCase{SolverType::kCg, PreconditionerType::kNone},
                    SolverCase{SolverType::kCg, PreconditionerType::kJacobi},
                    SolverCase{SolverType::kCg, PreconditionerType::kBlockJacobi},
                    SolverCase{SolverType::kBiCgStab, PreconditionerType::kNone},
                    SolverCase{SolverType::kBiCgStab, PreconditionerType::kBlockJacobi},
                    SolverCase{SolverType::kQmr, PreconditionerType::kNone},
                    SolverCase{SolverType::kQmr, PreconditionerType::kJacobi},
                    SolverCase{SolverType::kQmr, PreconditionerType::kBlockJacobi},
                    SolverCase{SolverType::kCg, PreconditionerType::kSsor},  // Eisenstat's form
                    SolverCase{SolverType::kCg, PreconditionerType::kIncompleteCholesky},
                    SolverCase{SolverType::kBiCgStab, PreconditionerType::kSsor},
                    SolverCase{SolverType::kQmr, PreconditionerType::kSsor},
                    SolverCase{SolverType::kGmres, PreconditionerType::kNone},
                    SolverCase{SolverType::kGmres, PreconditionerType::kBlockJacobi},
                    SolverCase{SolverType::kGmres, PreconditionerType::kSsor},
                    SolverCase{SolverType::kGmres, PreconditionerType::kIncompleteCholesky}));

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

TEST(Gmres, SolvesNonSymmetricIndefiniteSystemsWithPreconditioners) {
  TestSystem sys(-3e3, 2e3, 0.3);
  Eigen::MatrixXd dense = sys.a.to_dense(*sys.topology);
  ConstrainedBlockOperator op(*sys.topology, sys.a, {});
  Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(op.size(), 1, 3);
  // Restarted GMRES can stagnate on indefinite systems; without restarts (the restart length
  // exceeds the dimension) it must converge with any preconditioner.
  for (PreconditionerType p : {PreconditionerType::kNone, PreconditionerType::kSsor}) {
    Eigen::VectorXd x = Eigen::VectorXd::Zero(op.size());
    SolveReport r = solve(op, b, x,
                          {.type = SolverType::kGmres,
                           .preconditioner = p,
                           .tolerance = 1e-9,
                           .max_iterations = 5000,
                           .gmres_restart = static_cast<int>(op.size())});
    EXPECT_EQ(r.reason, StopReason::kConverged) << preconditioner_name(p);
    // GMRES reports the true residual, recomputed after the last cycle.
    EXPECT_NEAR((b - dense * x).norm() / b.norm(), r.relative_residual, 1e-12);
    EXPECT_LE(r.relative_residual, 1e-9);
  }
}

// M = (D + L) D^-1 (D + U) built densely; the sweeps must apply M^-1 and M^-T.
TEST(BlockSsor, AppliesTheInverseOfTheDenseSsorMatrix) {
  TestSystem sys(5e3, 300.0, 0.2);
  std::vector<std::uint8_t> fixed(static_cast<size_t>(sys.topology->num_vertices()), 0);
  fixed[2] = fixed[17] = 1;
  ConstrainedBlockOperator op(*sys.topology, sys.a, fixed);
  const Eigen::Index n = op.size();
  const Eigen::MatrixXd a = test::dense_operator(op);
  Eigen::MatrixXd d = Eigen::MatrixXd::Zero(n, n), lower = Eigen::MatrixXd::Zero(n, n);
  for (Eigen::Index v = 0; v < n / 3; ++v)
    d.block<3, 3>(3 * v, 3 * v) = a.block<3, 3>(3 * v, 3 * v);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < n; ++j)
      if (j / 3 < i / 3) lower(i, j) = a(i, j);
  const Eigen::MatrixXd upper = a - d - lower;
  const Eigen::MatrixXd m = (d + lower) * d.inverse() * (d + upper);
  BlockSsor ssor(op);
  Eigen::VectorXd r = Eigen::VectorXd::LinSpaced(n, -2, 5), z;
  ssor.apply(r, z);
  EXPECT_LT((m * z - r).norm(), 1e-10 * r.norm());
  ssor.apply_transpose(r, z);
  EXPECT_LT((m.transpose() * z - r).norm(), 1e-10 * r.norm());
}

// Eisenstat's form is an implementation of SSOR-PCG, not another method: after k iterations its
// iterate equals that of CG preconditioned with the explicit sweeps.
TEST(BlockSsor, EisenstatCgMatchesExplicitSsorPcgIterateByIterate) {
  TestSystem sys(2e3, 0.0, 0.1);
  ConstrainedBlockOperator op(*sys.topology, sys.a, {});
  BlockSsor ssor(op);
  ASSERT_TRUE(ssor.symmetric_positive_definite());
  Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(op.size(), -1, 1);
  for (int k = 1; k <= 8; ++k) {
    SolverOptions o{.tolerance = 1e-30, .max_iterations = k};
    Eigen::VectorXd x_eisenstat = Eigen::VectorXd::Constant(op.size(), 0.01);
    Eigen::VectorXd x_explicit = x_eisenstat;
    SolveReport fast = ssor.eisenstat_cg(b, x_eisenstat, o);
    SolveReport slow = krylov_solve(SolverType::kCg, op, ssor, b, x_explicit, o);
    ASSERT_EQ(fast.iterations, k);
    EXPECT_LT((x_eisenstat - x_explicit).norm(), 1e-9 * x_explicit.norm()) << "k=" << k;
    EXPECT_NEAR(fast.relative_residual, slow.relative_residual, 1e-9 * slow.relative_residual);
  }
}

TEST(BlockSsor, PreconditionsBetterThanBlockJacobi) {
  TestSystem sys(500.0, 0.0, 0.1, 5);
  ConstrainedBlockOperator op(*sys.topology, sys.a, {});
  Eigen::VectorXd b = Eigen::VectorXd::Ones(op.size());
  Eigen::VectorXd x1 = Eigen::VectorXd::Zero(op.size()), x2 = x1;
  SolveReport ssor = solve(op, b, x1,
                           {.type = SolverType::kCg,
                            .preconditioner = PreconditionerType::kSsor,
                            .tolerance = 1e-8,
                            .max_iterations = 5000});
  SolveReport jacobi = solve(op, b, x2,
                             {.type = SolverType::kCg,
                              .preconditioner = PreconditionerType::kBlockJacobi,
                              .tolerance = 1e-8,
                              .max_iterations = 5000});
  ASSERT_EQ(ssor.reason, StopReason::kConverged);
  ASSERT_EQ(jacobi.reason, StopReason::kConverged);
  EXPECT_LT(ssor.iterations, 0.7 * jacobi.iterations);
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
  for (SolverType type :
       {SolverType::kCg, SolverType::kBiCgStab, SolverType::kQmr, SolverType::kGmres}) {
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
  for (SolverType type :
       {SolverType::kCg, SolverType::kBiCgStab, SolverType::kQmr, SolverType::kGmres}) {
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
