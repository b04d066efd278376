// Projected Gauss-Seidel on Signorini + Coulomb (codec/contact_pgs.h): closed-form single contacts
// and, on random well-posed problems, the laws themselves at every contact.
#include "codec/contact_pgs.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace softbody::codec {
namespace {

ContactProblem single(double w, double dn, double dt1, double mu) {
  ContactProblem p;
  p.contacts = 1;
  p.w = {w, 0, 0, 0, w, 0, 0, 0, w};
  p.delta_free = {dn, dt1, 0};
  p.mu = {mu};
  return p;
}

TEST(ContactPgs, PushesAPenetratingPointOutExactly) {
  const ContactProblem p = single(1e-3, -2e-3, 0, 0);
  std::vector<double> lambda;
  const PgsReport r = solve_contact_pgs(p, lambda);
  EXPECT_TRUE(r.converged);
  EXPECT_NEAR(lambda[0], 2.0, 1e-9);  // w lambda = 2 mm
  EXPECT_NEAR(contact_motion(p, lambda)[0], 0, 1e-12);
}

TEST(ContactPgs, LeavesASeparatingPointAlone) {
  const ContactProblem p = single(1e-3, 1e-4, 5e-4, 0.5);
  std::vector<double> lambda{3, 1, 0};  // a warm start that no longer applies
  solve_contact_pgs(p, lambda);
  EXPECT_EQ(lambda, (std::vector<double>{0, 0, 0}));
}

// Free slip 2 mm against 10 mm of penetration: sticking needs |lambda_t| = 2 <= mu 10.
TEST(ContactPgs, SticksInsideTheConeAndSlipsOnItsBoundary) {
  {
    const ContactProblem p = single(1e-3, -10e-3, 2e-3, 0.3);
    std::vector<double> lambda;
    EXPECT_TRUE(solve_contact_pgs(p, lambda).converged);
    const std::vector<double> delta = contact_motion(p, lambda);
    EXPECT_NEAR(delta[1], 0, 1e-12);  // stuck
    EXPECT_NEAR(lambda[1], -2.0, 1e-9);
  }
  {
    const ContactProblem p = single(1e-3, -10e-3, 2e-3, 0.1);
    std::vector<double> lambda;
    EXPECT_TRUE(solve_contact_pgs(p, lambda).converged);
    const std::vector<double> delta = contact_motion(p, lambda);
    EXPECT_NEAR(lambda[0], 10.0, 1e-9);
    EXPECT_NEAR(lambda[1], -1.0, 1e-9);  // on the cone, against the slip
    EXPECT_NEAR(delta[1], 1e-3, 1e-12);  // slips by what friction could not hold
  }
}

// Random problems: W = B B^T + small diagonal (coupled contacts), random gaps and slips. At the
// answer every contact satisfies Signorini and Coulomb to the tolerance.
TEST(ContactPgs, SatisfiesSignoriniAndCoulombAtEveryContact) {
  std::mt19937 random(7);
  std::uniform_real_distribution<double> unit(-1, 1);
  for (int trial = 0; trial < 20; ++trial) {
    const int m = 2 + trial % 7;
    const int n = 3 * m;
    std::vector<double> b(static_cast<size_t>(n * n));
    for (double& x : b) x = unit(random);
    ContactProblem p;
    p.contacts = m;
    p.w.assign(static_cast<size_t>(n * n), 0);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        double s = i == j ? 0.5 : 0;
        for (int k = 0; k < n; ++k)
          s += b[static_cast<size_t>(i * n + k)] * b[static_cast<size_t>(j * n + k)];
        p.w[static_cast<size_t>(i * n + j)] = 1e-3 * s / n;
      }
    for (int i = 0; i < n; ++i) p.delta_free.push_back(1e-3 * unit(random));
    for (int k = 0; k < m; ++k) p.mu.push_back(0.5 * (1 + unit(random)));
    std::vector<double> lambda;
    const PgsOptions options{.max_iterations = 20000, .tolerance = 1e-12};
    const PgsReport r = solve_contact_pgs(p, lambda, options);
    ASSERT_TRUE(r.converged) << "trial " << trial << " residual " << r.residual;
    const std::vector<double> delta = contact_motion(p, lambda);
    for (int k = 0; k < m; ++k) {
      const auto i = static_cast<size_t>(3 * k);
      const double ln = lambda[i], lt = std::hypot(lambda[i + 1], lambda[i + 2]);
      const double dn = delta[i], dt = std::hypot(delta[i + 1], delta[i + 2]);
      const double scale = 1e-3;  // typical W lambda [m]
      EXPECT_GE(ln, 0);
      EXPECT_GE(dn, -1e-9 * scale);                                            // no penetration
      EXPECT_LE(std::min(ln * 1e-3, std::abs(dn)), 1e-9 * scale);              // complementarity
      EXPECT_LE(lt, p.mu[static_cast<size_t>(k)] * ln * (1 + 1e-12) + 1e-15);  // inside the cone
      if (lt < p.mu[static_cast<size_t>(k)] * ln * (1 - 1e-6)) {
        EXPECT_LE(dt, 1e-8 * scale);  // strictly inside: stuck
      } else if (dt > 1e-8 * scale && ln > 0) {
        // Slipping: the friction force opposes the slip.
        const double cosine =
            (lambda[i + 1] * delta[i + 1] + lambda[i + 2] * delta[i + 2]) / (lt * dt);
        EXPECT_LT(cosine, -1 + 1e-5);
      }
    }
  }
}

// A grasp's shape of problem: many contacts coupled through one compliant body, so W is nearly
// singular (a rank-30 surface compliance over 60 contacts, plus a little of its own) and some
// rows repeat exactly (two contacts on one feature). The active set then cycles; stopping it
// once it stalls (and Newton on Alart-Curnier's equations and the PGS polish taking over) must
// still meet the laws, as running all its iterations does.
TEST(ContactSolve, MeetsTheLawsOnAnIllConditionedGraspWhetherTheActiveSetStopsEarlyOrNot) {
  std::mt19937 random(11);
  std::uniform_real_distribution<double> unit(-1, 1);
  const int m = 60, n = 3 * m, rank = 30;
  std::vector<double> b(static_cast<size_t>(n * rank));
  for (double& x : b) x = unit(random);
  for (int c = 0; c < rank; ++c)
    b[static_cast<size_t>(3 * 1 * rank + c)] = b[static_cast<size_t>(c)];
  ContactProblem p;
  p.contacts = m;
  p.w.assign(static_cast<size_t>(n * n), 0);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double s = i == j ? 1e-3 : 0;
      for (int k = 0; k < rank; ++k)
        s += b[static_cast<size_t>(i * rank + k)] * b[static_cast<size_t>(j * rank + k)];
      p.w[static_cast<size_t>(i * n + j)] = 1e-3 * s / rank;
    }
  for (int k = 0; k < m; ++k) {
    p.delta_free.push_back(-1e-3 * (0.2 + 0.8 * std::abs(unit(random))));  // all pressed in
    p.delta_free.push_back(1e-3 * unit(random));
    p.delta_free.push_back(1e-3 * unit(random));
    p.mu.push_back(0.5);
  }
  const PgsOptions pgs{.max_iterations = 2000, .tolerance = 1e-10};
  for (const int stall : {1, 3, 1000}) {
    std::vector<double> lambda;
    ActiveSetOptions active_set;
    active_set.stall_iterations = stall;
    const PgsReport r = solve_contact(p, lambda, pgs, active_set);
    EXPECT_TRUE(r.converged) << "stall " << stall << ": residual " << r.residual;
    EXPECT_LE(contact_residual(p, lambda), 1e-10) << "stall " << stall;
    for (int k = 0; k < m; ++k) {
      const auto i = static_cast<size_t>(3 * k);
      EXPECT_GE(lambda[i], 0);
      EXPECT_LE(std::hypot(lambda[i + 1], lambda[i + 2]), 0.5 * lambda[i] * (1 + 1e-9) + 1e-15);
    }
  }
}

}  // namespace
}  // namespace softbody::codec

namespace softbody::codec {
namespace {

// Every contact pressed and held well inside its cone: the active set's equations are W's block,
// and its first solve is the answer (a wrong dense solve fails this test: checked with one that
// scaled its back substitution by 1 %). The answer is W
// lambda = -delta_free exactly (all stuck), for a well-conditioned W and for one whose rows are
// dependent (more contact rows than the points they move: W = B B^T of rank 2/3 of its size), where
// the regularized solve picks one of the equivalent force distributions and the motion still
// meets the laws.
TEST(ContactSolve, AllStuckContactsSolveWsBlockExactlyWhetherWIsRegularOrSingular) {
  for (const bool singular : {false, true}) {
    std::mt19937 random(7);
    std::uniform_real_distribution<double> u(-1, 1);
    const int m = 40, n = 3 * m, rank = singular ? 2 * n / 3 : n;
    std::vector<double> b(static_cast<size_t>(n * rank));
    for (double& x : b) x = 1e-2 * u(random);
    ContactProblem p;
    p.contacts = m;
    p.w.assign(static_cast<size_t>(n * n), 0.0);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        double s = 0;
        for (int k = 0; k < rank; ++k)
          s += b[static_cast<size_t>(i * rank + k)] * b[static_cast<size_t>(j * rank + k)];
        p.w[static_cast<size_t>(i * n + j)] = s + (i == j && !singular ? 1e-4 : 0);
      }
    // Free motions the forces of a random answer inside the cone undo exactly.
    std::vector<double> answer(static_cast<size_t>(n));
    for (int k = 0; k < m; ++k) {
      answer[static_cast<size_t>(3 * k)] = 1 + 0.5 * u(random);
      answer[static_cast<size_t>(3 * k + 1)] = 0.1 * u(random);
      answer[static_cast<size_t>(3 * k + 2)] = 0.1 * u(random);
    }
    p.delta_free.assign(static_cast<size_t>(n), 0.0);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        p.delta_free[static_cast<size_t>(i)] -=
            p.w[static_cast<size_t>(i * n + j)] * answer[static_cast<size_t>(j)];
    p.mu.assign(static_cast<size_t>(m), 1.0);
    // Regular W: the active set alone (no Newton on Alart & Curnier's equations, no polishing
    // sweeps, which would mend a wrong linear solve), whose answer is the linear solve's. Singular:
    // the whole solve (the regularized equations' answer may separate a contact, which the later
    // stages settle).
    std::vector<double> lambda;
    const PgsReport r =
        singular ? solve_contact(p, lambda)
                 : solve_contact(p, lambda, {.max_iterations = 0}, {.alart_curnier_iterations = 0});
    if (singular) {
      EXPECT_TRUE(r.converged) << "residual " << r.residual;
    }
    const std::vector<double> delta = contact_motion(p, lambda);
    double largest_motion = 0, largest_free = 0;
    for (int i = 0; i < n; ++i) {
      largest_motion = std::max(largest_motion, std::abs(delta[static_cast<size_t>(i)]));
      largest_free = std::max(largest_free, std::abs(p.delta_free[static_cast<size_t>(i)]));
    }
    if (singular) {
      // The regularization's compliance (1e-8 of W's diagonal) leaves motions at the solve's
      // tolerance (1e-9 m).
      EXPECT_LT(largest_motion, 1e-8);
    } else {
      EXPECT_LT(largest_motion, 1e-9 * largest_free);
      for (int i = 0; i < n; ++i)
        EXPECT_NEAR(lambda[static_cast<size_t>(i)], answer[static_cast<size_t>(i)], 1e-8) << i;
    }
  }
}

}  // namespace
}  // namespace softbody::codec
