// The stateful solver layer: the CSC assembly, CHOLMOD factorizations (Cholesky, LDL^T for
// indefinite matrices), the reused factor as a preconditioner and its refresh policy, background
// refactoring, and the definiteness cases a crushed body produces.
#include "engine/solvers/step_solver.h"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <Eigen/Eigenvalues>
#include <set>
#include <thread>

#include "engine/tests/test_systems.h"

namespace softbody {
namespace {

using test::dense_operator;
using test::TestSystem;

double true_residual(const LinearOperator& op, const Eigen::VectorXd& b, const Eigen::VectorXd& x) {
  Eigen::VectorXd ax;
  op.apply(x, ax);
  return (b - ax).norm() / b.norm();
}

std::vector<std::uint8_t> some_fixed(const MeshTopology& topology) {
  std::vector<std::uint8_t> fixed(static_cast<size_t>(topology.num_vertices()), 0);
  fixed[0] = fixed[5] = fixed[9] = 1;
  return fixed;
}

TEST(SymmetricCsc, HoldsTheUpperTriangleOfTheSymmetrizedConstrainedMatrix) {
  TestSystem sys(100.0, 40.0, 0.2);
  const auto fixed = some_fixed(*sys.topology);
  ConstrainedBlockOperator op(*sys.topology, sys.a, fixed);
  SymmetricCsc csc(*sys.topology, fixed);
  csc.assign(sys.a);
  const Eigen::MatrixXd a = dense_operator(op);
  const Eigen::MatrixXd expected = 0.5 * (a + a.transpose());
  const Eigen::MatrixXd upper = Eigen::MatrixXd(csc.upper());
  const Eigen::MatrixXd full = Eigen::MatrixXd(upper.selfadjointView<Eigen::Upper>());
  EXPECT_LT((full - expected).norm(), 1e-13 * expected.norm());
  EXPECT_EQ(Eigen::MatrixXd(upper.triangularView<Eigen::StrictlyLower>()).norm(), 0.0);
}

TEST(SparseCholesky, FactorsDefiniteMatricesWithCholeskyAndIndefiniteOnesWithLdlt) {
  for (double shift : {2e4, -3e3}) {
    TestSystem sys(shift, 0.0, 0.3);
    const auto fixed = some_fixed(*sys.topology);
    ConstrainedBlockOperator op(*sys.topology, sys.a, fixed);
    const Eigen::MatrixXd a = dense_operator(op);
    const double min_eigenvalue =
        Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(a).eigenvalues()[0];
    SymmetricCsc csc(*sys.topology, fixed);
    csc.assign(sys.a);
    SparseCholesky factor;
    factor.analyze(csc);
    const FactorInfo info = factor.factorize(csc);
    EXPECT_EQ(info.kind, min_eigenvalue > 0 ? FactorKind::kCholesky : FactorKind::kLdlt)
        << "shift " << shift << " min eigenvalue " << min_eigenvalue;
    EXPECT_GE(info.nnz_factor, a.rows());
    EXPECT_GT(info.fill, 1.0);
    Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(a.rows(), -1, 2), x;
    factor.solve(b, x);
    EXPECT_LT((a * x - b).norm(), 1e-9 * b.norm()) << "shift " << shift;
  }
}

// The shift ladder walked from where the last scan ended (one factor carried through a sequence of
// matrices, more and less indefinite, and definite) lands on the same rung as a scan from the
// bottom with a fresh factor, for the definite factorization (contact's) and the general one.
TEST(SparseCholesky, TheShiftLadderFromTheLastRungFindsTheRungAScanFromTheBottomFinds) {
  const std::vector<double> shifts = {-3e3, -1e3, -3e4, -3e4, 2e4, -3e3, -1e2, -3e3};
  for (const bool definite_only : {false, true}) {
    SparseCholesky walked;
    bool analyzed = false;
    std::set<double> rungs;  // the walk must go both up and down the ladder
    for (double shift : shifts) {
      TestSystem sys(shift, 0.0, 0.3);
      const auto fixed = some_fixed(*sys.topology);
      SymmetricCsc csc(*sys.topology, fixed);
      csc.assign(sys.a);
      if (!analyzed) walked.analyze(csc);
      analyzed = true;
      SparseCholesky fresh;
      fresh.analyze(csc);
      const FactorInfo expected =
          definite_only ? fresh.factorize_definite(csc, 0) : fresh.factorize(csc, true);
      const FactorInfo got =
          definite_only ? walked.factorize_definite(csc, 0) : walked.factorize(csc, true);
      EXPECT_EQ(got.kind, expected.kind) << "matrix shift " << shift;
      EXPECT_EQ(got.shift, expected.shift) << "matrix shift " << shift;
      rungs.insert(got.shift);
      // And the factor held is that of the rung reported (a failed try below it was redone, or the
      // margin rung factored after it; after a shifted factor the ladder starts at its rung).
      ConstrainedBlockOperator op(*sys.topology, sys.a, fixed);
      const Eigen::MatrixXd a = dense_operator(op);
      const Eigen::MatrixXd shifted =
          0.5 * (a + a.transpose()) + got.shift * Eigen::MatrixXd::Identity(a.rows(), a.cols());
      Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(a.rows(), -1, 2), x;
      walked.solve(b, x);
      EXPECT_LT((shifted * x - b).norm(), 1e-8 * b.norm()) << "matrix shift " << shift;
    }
    EXPECT_GE(rungs.size(), 4u);
  }
}

// Many right-hand sides at once, and the Delassus operator W = B^T A^-1 B by half-solves (contact,
// seed 002): equal to B^T X with X the block solve (whose residual is checked against A), for
// CHOLMOD's simplicial and supernodal forms, definite (Cholesky) and indefinite (LDL^T; the
// supernodal form falls back to a simplicial LDL^T there).
TEST(SparseCholesky, SolvesBlocksAndHalfSolvesGiveTheDelassusOperator) {
  bool supernodal_seen = false, simplicial_seen = false;
  for (FactorForm form : {FactorForm::kSimplicial, FactorForm::kSupernodal}) {
    for (double shift : {2e4, -3e3}) {
      const int cells = 4;
      TestSystem sys(shift, 0.0, 0.3, cells);
      const auto fixed = some_fixed(*sys.topology);
      ConstrainedBlockOperator op(*sys.topology, sys.a, fixed);
      SymmetricCsc csc(*sys.topology, fixed);
      csc.assign(sys.a);
      SparseCholesky factor(form);
      factor.analyze(csc);
      const FactorInfo info = factor.factorize(csc);
      supernodal_seen = supernodal_seen || info.supernodal;
      simplicial_seen = simplicial_seen || !info.supernodal;
      // Contact-like rows: each a normal (1, 2, -1)/sqrt(6) spread over three vertices with
      // barycentric weights.
      const int m = 12;
      std::vector<Eigen::Triplet<double>> entries;
      const Eigen::Index vertices = op.size() / 3;
      for (int k = 0; k < m; ++k) {
        const double weights[3] = {0.2, 0.3, 0.5};
        for (int j = 0; j < 3; ++j) {
          const Eigen::Index v = (7 * k + 11 * j + 5) % vertices;
          const Vec3 n = Vec3(1, 2, -1).normalized();
          for (int c = 0; c < 3; ++c) entries.emplace_back(3 * v + c, k, weights[j] * n(c));
        }
      }
      Eigen::SparseMatrix<double> jt(op.size(), m);
      jt.setFromTriplets(entries.begin(), entries.end());
      const Eigen::MatrixXd b(jt);
      // The block solve, column by column against A.
      Eigen::MatrixXd x;
      factor.solve(b, x);
      for (Eigen::Index k = 0; k < m; ++k) {
        Eigen::VectorXd ax;
        op.apply(x.col(k), ax);
        EXPECT_LT((ax - b.col(k)).norm(), 1e-9 * b.col(k).norm()) << cells << " " << shift;
      }
      const Eigen::MatrixXd expected = b.transpose() * x;
      // A supernodal factor solves Y as a dense block, or by sparse columns above a size.
      for (double dense_entries : {SparseCholesky::kDefaultDenseHalfSolveEntries, 0.0}) {
        factor.set_dense_half_solve_entries(dense_entries);
        const Eigen::MatrixXd w = factor.inverse_quadratic_form(jt);
        EXPECT_LT((w - expected).norm(), 1e-9 * expected.norm()) << cells << " " << shift;
        EXPECT_LT((w - w.transpose()).norm(), 1e-12 * w.norm());
        // Asked again after other rows (the dense blocks are kept between calls and must hold
        // nothing of the other rows): the same bits.
        std::vector<Eigen::Triplet<double>> moved;
        for (const auto& t : entries)
          moved.emplace_back((t.row() + 3) % op.size(), t.col(), 2 * t.value());
        Eigen::SparseMatrix<double> other(op.size(), m);
        other.setFromTriplets(moved.begin(), moved.end());
        factor.inverse_quadratic_form(other);
        EXPECT_EQ(factor.inverse_quadratic_form(jt), w);
      }
    }
  }
  EXPECT_TRUE(supernodal_seen && simplicial_seen) << "both factor forms must be covered";
}

// Contact-like rows over the unknowns of a few vertices: each row a unit normal spread over three
// vertices with barycentric weights that `drift` moves (a held contact sliding on its face).
Eigen::SparseMatrix<double> barycentric_rows(Eigen::Index vertices, int m, double drift) {
  std::vector<Eigen::Triplet<double>> entries;
  for (int k = 0; k < m; ++k) {
    const double weights[3] = {0.2 + drift, 0.3, 0.5 - drift};
    for (int j = 0; j < 3; ++j) {
      const Eigen::Index v = (7 * k + 11 * j + 5) % vertices;
      const Vec3 n = Vec3(1, 2 + drift, -1).normalized();
      for (int c = 0; c < 3; ++c) entries.emplace_back(3 * v + c, k, weights[j] * n(c));
    }
  }
  Eigen::SparseMatrix<double> jt(3 * vertices, m);
  jt.setFromTriplets(entries.begin(), entries.end());
  return jt;
}

// W from the kept compliances between single unknowns (seed 002's fast scheme on a kept factor)
// is W by half-solves, and its bits do not depend on which rows were asked for before: a restored
// session, which starts with none kept, continues identically. A new factor forgets them.
TEST(SparseCholesky, KeptUnknownsGiveTheDelassusOperatorWhateverWasAskedBefore) {
  for (double shift : {2e4, -3e3}) {  // Cholesky and LDL^T
    TestSystem sys(shift, 0.0, 0.3, 4);
    const auto fixed = some_fixed(*sys.topology);
    SymmetricCsc csc(*sys.topology, fixed);
    csc.assign(sys.a);
    const Eigen::Index vertices = sys.topology->num_vertices();
    const Eigen::SparseMatrix<double> today = barycentric_rows(vertices, 12, 0.01);

    SparseCholesky fresh(FactorForm::kSimplicial), used(FactorForm::kSimplicial);
    for (SparseCholesky* f : {&fresh, &used}) {
      f->analyze(csc);
      ASSERT_NE(f->factorize(csc).kind, FactorKind::kNone);
    }
    const Eigen::MatrixXd solved = fresh.inverse_quadratic_form(today);
    const Eigen::MatrixXd kept = fresh.inverse_quadratic_form(today, true);
    EXPECT_LT((kept - solved).norm(), 1e-12 * solved.norm()) << shift;
    EXPECT_EQ((kept - kept.transpose()).norm(), 0) << shift;
    // The other factor was asked for other rows first (yesterday's weights, and more of them).
    used.inverse_quadratic_form(barycentric_rows(vertices, 20, 0.0), true);
    used.inverse_quadratic_form(barycentric_rows(vertices, 5, 0.03), true);
    const Eigen::MatrixXd again = used.inverse_quadratic_form(today, true);
    EXPECT_TRUE(again == kept) << shift << ": " << (again - kept).norm();
    // A new factorization of another matrix forgets what was kept.
    for (Mat3& d : sys.a.vertex_blocks) d.diagonal().array() += 1e3;
    csc.assign(sys.a);
    used.factorize(csc);
    const Eigen::MatrixXd moved = used.inverse_quadratic_form(today, true);
    const Eigen::MatrixXd moved_solved = used.inverse_quadratic_form(today);
    EXPECT_LT((moved - moved_solved).norm(), 1e-12 * moved_solved.norm()) << shift;
    EXPECT_GT((moved - kept).norm(), 1e-6 * kept.norm()) << shift;
  }
}

// A supernodal factor keeps the compliance block of the last set of unknowns it was asked for
// (UnknownBlockCompliance): W over those unknowns in any frames is W by half-solves, its bits
// depend only on the factor, the set and the rows (a restored session starts with none kept), and
// a new factor forgets the block.
TEST(SparseCholesky, ASupernodalFactorKeepsTheBlockOfItsLastUnknowns) {
  TestSystem sys(2e4, 0.0, 0.3, 4);
  const auto fixed = some_fixed(*sys.topology);
  SymmetricCsc csc(*sys.topology, fixed);
  csc.assign(sys.a);
  const Eigen::Index vertices = sys.topology->num_vertices();
  const Eigen::SparseMatrix<double> today = barycentric_rows(vertices, 12, 0.01);

  SparseCholesky fresh(FactorForm::kSupernodal), used(FactorForm::kSupernodal);
  for (SparseCholesky* f : {&fresh, &used}) {
    f->analyze(csc);
    ASSERT_EQ(f->factorize(csc).kind, FactorKind::kCholesky);
    ASSERT_TRUE(f->info().supernodal);
  }
  const Eigen::MatrixXd solved = fresh.inverse_quadratic_form(today);
  const Eigen::MatrixXd kept = fresh.inverse_quadratic_form(today, true);
  EXPECT_LT((kept - solved).norm(), 1e-12 * solved.norm());
  EXPECT_EQ((kept - kept.transpose()).norm(), 0);
  // The same unknowns in turned frames (the weights drift): the kept block, no solve, and right.
  const Eigen::SparseMatrix<double> turned = barycentric_rows(vertices, 12, 0.03);
  const Eigen::MatrixXd turned_kept = fresh.inverse_quadratic_form(turned, true);
  const Eigen::MatrixXd turned_solved = fresh.inverse_quadratic_form(turned);
  EXPECT_LT((turned_kept - turned_solved).norm(), 1e-12 * turned_solved.norm());
  // The other factor was asked for other unknowns first, then today's in turned frames.
  used.inverse_quadratic_form(barycentric_rows(vertices, 20, 0.0), true);
  used.inverse_quadratic_form(turned, true);
  const Eigen::MatrixXd again = used.inverse_quadratic_form(today, true);
  EXPECT_TRUE(again == kept) << (again - kept).norm();
  // A new factorization of another matrix forgets the block.
  for (Mat3& d : sys.a.vertex_blocks) d.diagonal().array() += 1e3;
  csc.assign(sys.a);
  used.factorize(csc);
  const Eigen::MatrixXd moved = used.inverse_quadratic_form(today, true);
  const Eigen::MatrixXd moved_solved = used.inverse_quadratic_form(today);
  EXPECT_LT((moved - moved_solved).norm(), 1e-12 * moved_solved.norm());
  EXPECT_GT((moved - kept).norm(), 1e-6 * kept.norm());
}

// The step solver's Delassus operator uses the factor its last solve left, drops the rows of fixed
// vertices, and refuses an indefinite factor (contact needs W positive definite).
TEST(StepSolver, GivesTheDelassusOperatorOfItsFactor) {
  TestSystem sys(2e4, 0.0, 0.1);
  const auto fixed = some_fixed(*sys.topology);
  ConstrainedBlockOperator op(*sys.topology, sys.a, fixed);
  StepSolver solver;
  Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(op.size(), 1, 2), x;
  solver.solve(op, b, x, {.type = SolverType::kDirect, .tolerance = 1e-10});
  // Rows on a free vertex, on free and fixed ones, and on a fixed one only.
  Index fixed_vertex = 0, free_a = -1, free_b = -1;
  for (Index v = 0; v < sys.topology->num_vertices(); ++v) {
    if (op.is_fixed(v))
      fixed_vertex = v;
    else if (free_a < 0)
      free_a = v;
    else if (free_b < 0)
      free_b = v;
  }
  ASSERT_TRUE(op.is_fixed(fixed_vertex));
  std::vector<Eigen::Triplet<double>> entries = {
      {3 * free_a + 1, 0, 1.0},                                   // a normal along y
      {3 * free_a, 1, 0.5},      {3 * free_b, 1, 0.5},            // two vertices along x
      {3 * free_b + 2, 2, 0.7},  {3 * fixed_vertex + 2, 2, 0.3},  // one partly fixed
      {3 * fixed_vertex, 3, 1.0}};                                // fixed only
  Eigen::SparseMatrix<double> jt(op.size(), 4);
  jt.setFromTriplets(entries.begin(), entries.end());
  const Eigen::MatrixXd w = solver.delassus(op, jt);
  Eigen::MatrixXd free_jt(jt);
  for (int c = 0; c < 3; ++c) free_jt.row(3 * fixed_vertex + c).setZero();
  const Eigen::MatrixXd expected = free_jt.transpose() * dense_operator(op).ldlt().solve(free_jt);
  EXPECT_LT((w - expected).norm(), 1e-9 * expected.norm());
  EXPECT_EQ(w.row(3).norm(), 0.0);  // a row on a fixed vertex only: no response
  EXPECT_GT(w(0, 0), 0.0);
  // An indefinite step matrix factored by LDL^T gives no Delassus operator.
  TestSystem indefinite(-3e3, 0.0, 0.3);
  ConstrainedBlockOperator iop(*indefinite.topology, indefinite.a,
                               some_fixed(*indefinite.topology));
  StepSolver isolver;
  Eigen::VectorXd ib = Eigen::VectorXd::LinSpaced(iop.size(), 1, 2), ix;
  isolver.solve(iop, ib, ix, {.type = SolverType::kDirect, .tolerance = 1e-10, .definite = false});
  EXPECT_THROW(isolver.delassus(iop, jt), std::logic_error);
}

// Contact's fresh compliance keeps a factor of (nearly) the same matrix: a held grasp's step
// matrix moves ~1e-8 a step. Within the tolerance no factorization, and W is the fresh one's to
// about the tolerance; beyond it, a new factor; none is kept with tolerance 0. A shifted factor
// (of an indefinite matrix: a squeezed body's) is kept alike: its W is that of a new scan's
// factor, which lands on the same rung.
TEST(StepSolver, AFreshDefiniteFactorIsKeptForTheSameMatrixOnly) {
  TestSystem sys(2e4, 0.0, 0.1);
  const auto fixed = some_fixed(*sys.topology);
  const auto scaled_from = [](const TestSystem& system, double factor) {
    EdgeBlockMatrix a = system.a;
    for (Mat3& d : a.vertex_blocks) d *= factor;
    return a;
  };
  const auto scaled = [&](double factor) { return scaled_from(sys, factor); };
  Eigen::SparseMatrix<double> jt(3 * sys.topology->num_vertices(), 2);
  jt.insert(3 * 1 + 1, 0) = 1.0;
  jt.insert(3 * 2, 1) = 0.6;
  jt.insert(3 * 3, 1) = 0.4;
  StepSolver solver;
  const ConstrainedBlockOperator op(*sys.topology, sys.a, fixed);
  EXPECT_TRUE(solver.refresh_definite_factor(op, 1e-6));  // none yet
  EXPECT_EQ(solver.factorizations(), 1);
  const EdgeBlockMatrix near = scaled(1 + 1e-9), far = scaled(1 + 1e-3);
  const ConstrainedBlockOperator near_op(*sys.topology, near, fixed),
      far_op(*sys.topology, far, fixed);
  EXPECT_FALSE(solver.refresh_definite_factor(near_op, 1e-6));
  EXPECT_EQ(solver.factorizations(), 1);
  StepSolver fresh;
  fresh.factorize_definite_now(near_op);
  const Eigen::MatrixXd kept = solver.delassus(near_op, jt), exact = fresh.delassus(near_op, jt);
  EXPECT_LT((kept - exact).norm(), 1e-8 * exact.norm());
  EXPECT_TRUE(solver.refresh_definite_factor(far_op, 1e-6));
  EXPECT_EQ(solver.factorizations(), 2);
  EXPECT_TRUE(solver.refresh_definite_factor(far_op, 0));  // 0: always
  EXPECT_EQ(solver.factorizations(), 3);
  // An indefinite matrix gets a shifted factor, kept and replaced by the same rule.
  TestSystem indefinite(-3e3, 0.0, 0.3);
  const auto ifixed = some_fixed(*indefinite.topology);
  const EdgeBlockMatrix inear = scaled_from(indefinite, 1 + 1e-9),
                        ifar = scaled_from(indefinite, 1 + 1e-3);
  const ConstrainedBlockOperator iop(*indefinite.topology, indefinite.a, ifixed),
      inear_op(*indefinite.topology, inear, ifixed), ifar_op(*indefinite.topology, ifar, ifixed);
  StepSolver isolver;
  EXPECT_TRUE(isolver.refresh_definite_factor(iop, 1e-6));
  ASSERT_TRUE(isolver.has_kept_factor());
  EXPECT_GT(isolver.factor()->info().shift, 0);
  const long after_first = isolver.factorizations();
  EXPECT_FALSE(isolver.refresh_definite_factor(inear_op, 1e-6));
  EXPECT_EQ(isolver.factorizations(), after_first);
  StepSolver ifresh;
  ifresh.factorize_definite_now(inear_op);
  // The same rung (the ladder is relative to the mean diagonal, here 1e-9 larger).
  EXPECT_NEAR(ifresh.factor()->info().shift, isolver.factor()->info().shift,
              1e-6 * isolver.factor()->info().shift);
  const Eigen::MatrixXd ikept = isolver.delassus(inear_op, jt),
                        iexact = ifresh.delassus(inear_op, jt);
  EXPECT_LT((ikept - iexact).norm(), 1e-8 * iexact.norm());
  EXPECT_TRUE(isolver.refresh_definite_factor(ifar_op, 1e-6));
  EXPECT_GT(isolver.factorizations(), after_first);
}

TEST(StepSolver, DirectSolvesToToleranceInOneIteration) {
  TestSystem sys(2e4, 0.0, 0.1);
  ConstrainedBlockOperator op(*sys.topology, sys.a, some_fixed(*sys.topology));
  StepSolver solver;
  Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(op.size(), 1, 2), x;
  SolveReport r = solver.solve(op, b, x, {.type = SolverType::kDirect, .tolerance = 1e-10});
  EXPECT_EQ(r.reason, StopReason::kConverged);
  EXPECT_EQ(r.factorizations, 1);
  EXPECT_LE(r.iterations, 1);
  EXPECT_LE(true_residual(op, b, x), 1e-10);
  EXPECT_STREQ(r.method, "cholesky-cg");
}

// A drifting matrix (the step matrix of a moving body): the first factor keeps preconditioning,
// each solve converges in a handful of iterations, and the factor is not made again every time.
TEST(StepSolver, ReusesItsFactorWhileTheMatrixDrifts) {
  TestSystem base(2e4, 0.0, 0.05);
  ConstrainedBlockOperator probe(*base.topology, base.a, {});
  StepSolver solver;
  auto model = make_force_model("stvk-edge", base.topology, base.mesh.vertices, Material{1e5, 0.4});
  int factorizations = 0, max_iterations = 0;
  for (int step = 0; step < 30; ++step) {
    EdgeBlockMatrix a =
        model->evaluate(random_smooth_deformation(base.mesh.vertices, 0.05 + 0.004 * step, 3)).K;
    for (Mat3& d : a.vertex_blocks) d.diagonal().array() += 2e4;
    ConstrainedBlockOperator op(*base.topology, a, {});
    Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(op.size(), 1, 2 + step), x;
    SolveReport r = solver.solve(op, b, x, {.type = SolverType::kAuto, .tolerance = 1e-8});
    ASSERT_EQ(r.reason, StopReason::kConverged) << "step " << step;
    EXPECT_LE(true_residual(op, b, x), 1.01e-8) << "step " << step;
    factorizations += r.factorizations;
    if (r.factorizations == 0) max_iterations = std::max(max_iterations, r.iterations);
  }
  EXPECT_LT(factorizations, 10);
  EXPECT_GE(factorizations, 1);
  EXPECT_LE(max_iterations, StepSolver::kReuseIterationLimit);
  EXPECT_EQ(solver.factorizations(), factorizations);
}

// A snapshot's solver state: a solver restored from it mid-sequence reuses the same factor and
// refreshes it at the same solves, so its solutions equal the original's bit for bit; a state that
// does not fit the pattern is dropped, never used.
TEST(StepSolver, ARestoredStateContinuesBitForBit) {
  TestSystem base(2e4, 0.0, 0.05);
  auto model = make_force_model("stvk-edge", base.topology, base.mesh.vertices, Material{1e5, 0.4});
  auto matrix = [&](int step) {
    EdgeBlockMatrix a =
        model->evaluate(random_smooth_deformation(base.mesh.vertices, 0.05 + 0.004 * step, 3)).K;
    for (Mat3& d : a.vertex_blocks) d.diagonal().array() += 2e4;
    return a;
  };
  const SolverOptions options{.type = SolverType::kAuto, .tolerance = 1e-8};
  StepSolver original, restored, fresh;
  int reused_after_restore = 0;
  for (int step = 0; step < 30; ++step) {
    const EdgeBlockMatrix a = matrix(step);
    ConstrainedBlockOperator op(*base.topology, a, {});
    const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(op.size(), 1, 2 + step);
    if (step == 12) {
      const StepSolverState state = original.save_state();
      ASSERT_TRUE(state.factored && !state.factored->values.empty());
      restored.restore_state(state);
      fresh.restore_state({});
    }
    Eigen::VectorXd x0 = Eigen::VectorXd::Zero(op.size()), x1 = x0, x2 = x0;
    const SolveReport r0 = original.solve(op, b, x0, options);
    if (step < 12) continue;
    const SolveReport r1 = restored.solve(op, b, x1, options);
    fresh.solve(op, b, x2, options);
    EXPECT_EQ(r0.factorizations, r1.factorizations) << "step " << step;
    if (r1.factorizations == 0) ++reused_after_restore;
    for (Eigen::Index i = 0; i < x0.size(); ++i) ASSERT_EQ(x0[i], x1[i]) << "step " << step;
    EXPECT_LE((x2 - x0).norm(), 1e-6 * x0.norm());  // without the state: only to the tolerance
  }
  EXPECT_GT(reused_after_restore, 0);
  EXPECT_EQ(restored.factorizations(), original.factorizations());
  EXPECT_EQ(restored.dropped_states(), 0);

  StepSolverState wrong = original.save_state();
  auto shortened = std::make_shared<FactoredMatrix>(*wrong.factored);
  shortened->values.pop_back();
  wrong.factored = shortened;
  StepSolver mismatched;
  mismatched.restore_state(wrong);
  const EdgeBlockMatrix a = matrix(0);
  ConstrainedBlockOperator op(*base.topology, a, {});
  const Eigen::VectorXd b = Eigen::VectorXd::Ones(op.size());
  Eigen::VectorXd x;
  const SolveReport r = mismatched.solve(op, b, x, options);
  EXPECT_EQ(mismatched.dropped_states(), 1);
  EXPECT_EQ(r.factorizations, 1);
  EXPECT_EQ(r.reason, StopReason::kConverged);
}

// Newton's directions (SolverOptions::newton_direction) on an indefinite matrix: CG on A itself
// with the factor of a definite matrix near it, stopped at negative curvature. The direction
// descends (b.x > 0: the step's potential falls along it), the shifted factor is kept for the
// next solves instead of climbing the shift ladder again, and a saved state carries it, so a
// restored solver continues bit for bit.
TEST(StepSolver, NewtonDirectionsReuseAShiftedFactorAndDescend) {
  TestSystem sys(-3e3, 0.0, 0.3);
  ConstrainedBlockOperator op(*sys.topology, sys.a, some_fixed(*sys.topology));
  const SolverOptions newton{
      .type = SolverType::kAuto, .tolerance = 0.01, .newton_direction = true};
  StepSolver solver;
  for (int solve = 0; solve < 4; ++solve) {
    const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(op.size(), -1, 2 + solve);
    Eigen::VectorXd x = Eigen::VectorXd::Zero(op.size());
    const SolveReport r = solver.solve(op, b, x, newton);
    EXPECT_STREQ(r.method, "newton-cg");
    EXPECT_EQ(r.factorizations, solve == 0 ? 1 : 0) << "solve " << solve;
    EXPECT_EQ(r.factor.kind, FactorKind::kShiftedCholesky);
    EXPECT_GT(b.dot(x), 0) << "solve " << solve;
    if (solve == 1) {
      const StepSolverState state = solver.save_state();
      ASSERT_TRUE(state.factored);
      EXPECT_EQ(state.factored->shift, r.factor.shift);
      StepSolver restored;
      restored.restore_state(state);
      const Eigen::VectorXd b2 = Eigen::VectorXd::LinSpaced(op.size(), 3, -1);
      Eigen::VectorXd x1 = Eigen::VectorXd::Zero(op.size()), x2 = x1;
      const SolveReport r1 = restored.solve(op, b2, x1, newton);
      const SolveReport r2 = solver.solve(op, b2, x2, newton);
      EXPECT_EQ(r1.factorizations, r2.factorizations);
      EXPECT_EQ(restored.dropped_states(), 0);
      for (Eigen::Index i = 0; i < x1.size(); ++i) ASSERT_EQ(x1[i], x2[i]);
    }
  }
  // A linearized step's solve in definite mode solves the shifted system exactly instead, and
  // makes a new factor for every indefinite matrix.
  StepSolver linearized;
  const Eigen::VectorXd b = Eigen::VectorXd::Ones(op.size());
  for (int solve = 0; solve < 2; ++solve) {
    Eigen::VectorXd x = Eigen::VectorXd::Zero(op.size());
    const SolveReport r =
        linearized.solve(op, b, x, {.type = SolverType::kAuto, .tolerance = 1e-8});
    EXPECT_GE(r.factorizations, 1);
    EXPECT_GT(r.shift, 0);
  }
}

// Friction makes vertex blocks non-symmetric: CG is not applicable, GMRES with the factor of the
// symmetric part converges.
TEST(StepSolver, SolvesNonSymmetricSystemsWithGmres) {
  TestSystem sys(2e4, 3e3, 0.1);
  ConstrainedBlockOperator op(*sys.topology, sys.a, {});
  ASSERT_FALSE(vertex_blocks_symmetric(op));
  StepSolver solver;
  Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(op.size(), -1, 2), x;
  SolveReport r = solver.solve(op, b, x, {.type = SolverType::kAuto, .tolerance = 1e-10});
  EXPECT_EQ(r.reason, StopReason::kConverged);
  EXPECT_STREQ(r.method, "cholesky-gmres");
  EXPECT_LE(true_residual(op, b, x), 1e-10);
}

// A follower load's Jacobian is not symmetric across edges (EdgeBlockMatrix::edge_skew): the
// operator's products with A and A^T are the dense matrix's, the solve runs GMRES on the factor of
// the symmetric part and meets the tolerance on A itself.
TEST(StepSolver, SolvesSystemsWithSkewEdgeBlocks) {
  TestSystem sys(2e4, 0, 0.1);
  EdgeBlockMatrix a = sys.a;
  a.edge_skew.resize(a.edge_blocks.size());
  for (size_t e = 0; e < a.edge_skew.size(); ++e) {
    const double s = static_cast<double>(e);
    const Vec3 w(std::sin(s), std::cos(1.7 * s), std::sin(0.3 * s + 1));
    a.edge_skew[e] = 0.3 * a.edge_blocks[e].norm() * Mat3(cross_matrix(w)) +
                     0.1 * a.edge_blocks[e].norm() * Mat3::Identity();
  }
  ConstrainedBlockOperator op(*sys.topology, a, {});
  ASSERT_FALSE(vertex_blocks_symmetric(op));
  const Eigen::MatrixXd dense = a.to_dense(*sys.topology);
  ASSERT_GT((dense - dense.transpose()).norm(), 0.01 * dense.norm());
  const Eigen::VectorXd x0 = Eigen::VectorXd::LinSpaced(op.size(), -1, 2);
  Eigen::VectorXd y, yt;
  op.apply(x0, y);
  op.apply_transpose(x0, yt);
  EXPECT_LT((y - dense * x0).norm(), 1e-12 * (dense * x0).norm());
  EXPECT_LT((yt - dense.transpose() * x0).norm(), 1e-12 * (dense.transpose() * x0).norm());
  Vec3Array xv(static_cast<size_t>(sys.topology->num_vertices())), yv;
  for (size_t v = 0; v < xv.size(); ++v) xv[v] = x0.segment<3>(3 * static_cast<Eigen::Index>(v));
  a.multiply(*sys.topology, xv, yv);
  for (size_t v = 0; v < yv.size(); ++v)
    EXPECT_LT((yv[v] - y.segment<3>(3 * static_cast<Eigen::Index>(v))).norm(), 1e-12 * y.norm());
  StepSolver solver;
  Eigen::VectorXd x;
  const SolveReport r = solver.solve(op, x0, x, {.type = SolverType::kAuto, .tolerance = 1e-10});
  EXPECT_EQ(r.reason, StopReason::kConverged);
  EXPECT_STREQ(r.method, "cholesky-gmres");
  EXPECT_LE(true_residual(op, x0, x), 1e-10);
}

// A crushed, partly inverted body: the tangent stiffness has large negative eigenvalues, so the
// step matrix is indefinite. auto detects it (Cholesky fails). In exact mode it factors LDL^T and
// still reaches the tolerance on A itself; a factor made while the matrix was definite is
// replaced. In definite mode (the integrator's default) it solves A + sigma I to the tolerance,
// sigma one rung above the smallest shift on its ladder that makes the matrix definite.
TEST(StepSolver, SolvesACrushedPartlyInvertedStateToTolerance) {
  TetMesh mesh = make_box_mesh({.nx = 4, .ny = 4, .nz = 4, .size = Vec3(0.2, 0.2, 0.2)});
  auto topology = std::make_shared<const MeshTopology>(mesh);
  auto model = make_force_model("stvk-edge", topology, mesh.vertices, Material{1e5, 0.45});
  Vec3Array crushed = mesh.vertices;
  int inverted = 0;
  for (Vec3& p : crushed) p.y() *= 0.05;
  for (size_t v = 0; v < crushed.size(); ++v)
    crushed[v].y() += 0.004 * std::sin(7.0 * static_cast<double>(v));  // folds some elements over
  for (const Tet& t : mesh.tets) inverted += six_signed_volume(crushed, t) < 0;
  ASSERT_GT(inverted, 0);
  const EdgeBlockMatrix k = model->evaluate(crushed).K;
  const double mass_term = 50.0;  // a light body: M / T^2 cannot hide the negative stiffness
  const EdgeBlockMatrix rest_like = model->evaluate(mesh.vertices).K;
  StepSolver solver;
  for (const EdgeBlockMatrix* source : {&rest_like, &k}) {
    EdgeBlockMatrix a = *source;
    for (Mat3& d : a.vertex_blocks) d.diagonal().array() += mass_term;
    ConstrainedBlockOperator op(*topology, a, {});
    const double min_eigenvalue =
        Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(dense_operator(op)).eigenvalues()[0];
    Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(op.size(), -1, 1), x;
    SolveReport r =
        solver.solve(op, b, x, {.type = SolverType::kAuto, .tolerance = 1e-8, .definite = false});
    EXPECT_EQ(r.reason, StopReason::kConverged) << r.method;
    EXPECT_LE(true_residual(op, b, x), 1e-8);
    if (source == &k) {
      EXPECT_LT(min_eigenvalue, 0);
      EXPECT_EQ(r.factor.kind, FactorKind::kLdlt);
      EXPECT_STREQ(r.method, "ldlt-gmres");
      // Definite mode on the same matrix: A + sigma I is positive definite and solved.
      StepSolver definite;
      Eigen::VectorXd y;
      SolveReport d = definite.solve(op, b, y, {.type = SolverType::kAuto, .tolerance = 1e-8});
      EXPECT_EQ(d.reason, StopReason::kConverged);
      EXPECT_EQ(d.factor.kind, FactorKind::kShiftedCholesky);
      EXPECT_STREQ(d.method, "shifted-cholesky-cg");
      // One rung above the first definite one: the worst mode ends >= 3 |lambda_min| above 0.
      EXPECT_GT(d.shift, 4 * -min_eigenvalue);
      EXPECT_LE(d.shift, 16 * -min_eigenvalue * (1 + 1e-9));
      EXPECT_LE(true_residual(ShiftedOperator(op, d.shift), b, y), 1e-8);
    } else {
      EXPECT_GT(min_eigenvalue, 0);
      EXPECT_EQ(r.factor.kind, FactorKind::kCholesky);
    }
  }
}

// Background refactoring: the solving thread never waits for a factorization after the first,
// every solve still reaches the tolerance, and factors made by the worker are installed.
TEST(StepSolver, BackgroundRefactoringInstallsNewFactorsWithoutLosingAccuracy) {
  TestSystem base(2e4, 0.0, 0.05);
  auto model = make_force_model("stvk-edge", base.topology, base.mesh.vertices, Material{1e5, 0.4});
  StepSolver solver;
  int installed = 0, sync = 0;
  for (int step = 0; step < 200 && installed == 0; ++step) {
    EdgeBlockMatrix a =
        model->evaluate(random_smooth_deformation(base.mesh.vertices, 0.05 + 0.01 * step, 3)).K;
    for (Mat3& d : a.vertex_blocks) d.diagonal().array() += 2e4;
    ConstrainedBlockOperator op(*base.topology, a, {});
    Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(op.size(), 1, 2), x;
    SolveReport r = solver.solve(
        op, b, x,
        {.type = SolverType::kAuto, .tolerance = 1e-8, .refactor = RefactorMode::kBackground});
    ASSERT_EQ(r.reason, StopReason::kConverged) << "step " << step;
    EXPECT_LE(true_residual(op, b, x), 1.01e-8);
    installed += r.background_factor_installed;
    sync += r.factorizations;
    if (step > 0) std::this_thread::yield();
  }
  EXPECT_GT(installed, 0);
  EXPECT_GE(sync, 1);  // the first factor is always made on the solving thread
}

TEST(StepSolver, KrylovTypesWithTheFactorPreconditionerUseTheReusedFactor) {
  TestSystem sys(2e4, 0.0, 0.1);
  ConstrainedBlockOperator op(*sys.topology, sys.a, {});
  StepSolver solver;
  Eigen::VectorXd b = Eigen::VectorXd::Ones(op.size());
  for (SolverType type :
       {SolverType::kCg, SolverType::kBiCgStab, SolverType::kQmr, SolverType::kGmres}) {
    Eigen::VectorXd x;
    SolveReport r = solver.solve(
        op, b, x,
        {.type = type, .preconditioner = PreconditionerType::kFactor, .tolerance = 1e-10});
    EXPECT_EQ(r.reason, StopReason::kConverged) << solver_type_name(type);
    EXPECT_LE(r.iterations, 3) << solver_type_name(type);
  }
  EXPECT_EQ(solver.factorizations(), 1);
}

}  // namespace
}  // namespace softbody
