// The contact solve (codec/contact_pgs.h's solve_contact) on a grasp's singular compliance: a
// lattice cube between two jaws on a floor, the vertices of its bottom edges touching the floor and
// a jaw at once.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <random>

#include "codec/contact_pgs.h"

namespace softbody::codec {
namespace {

constexpr int kSide = 7;  // vertices along each edge of the cube: 343, as scenes/grasp.json's

int vertex(int i, int j, int k) {
  return (i * kSide + j) * kSide + k;
}

// (I + k L)^-1 for the lattice's graph Laplacian L (unit masses, springs of stiffness k along
// its edges): the body's compliance per coordinate (the three coordinates decouple), by
// Gauss-Jordan elimination (the matrix is symmetric positive definite: no pivoting).
std::vector<double> lattice_compliance(double k) {
  const int n = kSide * kSide * kSide;
  const auto at = [n](int r, int c) { return static_cast<size_t>(r) * n + c; };
  std::vector<double> a(static_cast<size_t>(n) * n, 0.0), inverse(a.size(), 0.0);
  for (int i = 0; i < kSide; ++i)
    for (int j = 0; j < kSide; ++j)
      for (int l = 0; l < kSide; ++l) {
        const int v = vertex(i, j, l);
        a[at(v, v)] += 1;
        const std::array<std::array<int, 3>, 3> next{{{i + 1, j, l}, {i, j + 1, l}, {i, j, l + 1}}};
        for (const auto& q : next) {
          if (q[0] == kSide || q[1] == kSide || q[2] == kSide) continue;
          const int u = vertex(q[0], q[1], q[2]);
          a[at(v, v)] += k;
          a[at(u, u)] += k;
          a[at(u, v)] -= k;
          a[at(v, u)] -= k;
        }
      }
  for (int i = 0; i < n; ++i) inverse[at(i, i)] = 1;
  for (int p = 0; p < n; ++p) {
    const double pivot = a[at(p, p)];
    for (int c = 0; c < n; ++c) {
      a[at(p, c)] /= pivot;
      inverse[at(p, c)] /= pivot;
    }
    for (int r = 0; r < n; ++r) {
      const double f = a[at(r, p)];
      if (r == p || f == 0) continue;
      for (int c = 0; c < n; ++c) {
        a[at(r, c)] -= f * a[at(p, c)];
        inverse[at(r, c)] -= f * inverse[at(p, c)];
      }
    }
  }
  return inverse;
}

struct Contact {
  int vertex;
  std::array<std::array<double, 3>, 3> frame;  // rows n, t1, t2
  double mu;
  std::array<double, 3> free_motion;  // gap and slip without contact forces [m]
};

// The floor (normal +y, mu 0.5) under the bottom face and two jaws (normals +x and -x, mu 0.8) on
// the side faces, pressed in 0.5 mm and lifting by `lift` [m]: the bottom edges' vertices carry
// a floor contact and a jaw contact, whose rows along y (the floor's normal, the jaw's first
// tangent) coincide.
ContactProblem jaw_grasp(const std::vector<double>& compliance, unsigned seed, double lift) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<Contact> contacts;
  for (int i = 0; i < kSide; ++i)
    for (int l = 0; l < kSide; ++l)
      contacts.push_back({vertex(i, 0, l),
                          {{{0, 1, 0}, {1, 0, 0}, {0, 0, 1}}},
                          0.5,
                          {-1e-4 * (1 + 0.2 * u(random)), 1e-5 * u(random), 1e-5 * u(random)}});
  for (int j = 0; j < kSide; ++j)
    for (int l = 0; l < kSide; ++l)
      for (const int side : {0, kSide - 1}) {
        const double nx = side == 0 ? 1 : -1;
        contacts.push_back(
            {vertex(side, j, l),
             {{{nx, 0, 0}, {0, 1, 0}, {0, 0, 1}}},
             0.8,
             {-5e-4 * (1 + 0.1 * u(random)), -lift * (1 + 0.3 * u(random)), 1e-5 * u(random)}});
      }
  const size_t m = contacts.size(), rows = 3 * m, n = kSide * kSide * kSide;
  ContactProblem p;
  p.contacts = static_cast<int>(m);
  p.w.assign(rows * rows, 0.0);
  for (size_t x = 0; x < m; ++x)
    for (size_t y = 0; y < m; ++y) {
      const double c = compliance[static_cast<size_t>(contacts[x].vertex) * n +
                                  static_cast<size_t>(contacts[y].vertex)];
      for (size_t r = 0; r < 3; ++r)
        for (size_t s = 0; s < 3; ++s) {
          double dot = 0;
          for (size_t d = 0; d < 3; ++d) dot += contacts[x].frame[r][d] * contacts[y].frame[s][d];
          p.w[(3 * x + r) * rows + 3 * y + s] = dot * c;
        }
    }
  for (const Contact& c : contacts) {
    p.delta_free.insert(p.delta_free.end(), c.free_motion.begin(), c.free_motion.end());
    p.mu.push_back(c.mu);
  }
  return p;
}

// Newton on Alart & Curnier's equations finds no descent on several of these (W is singular), and
// the active set's classifications cycle; the proximal point iterations (Newton on the laws with
// W + eps D about the last answer) meet them. Without those iterations (proximal_iterations 0)
// 7 of these 12 ended 1.5e-6 to 1e-5 m from the laws after 200 sweeps of Gauss-Seidel.
TEST(ContactSolve, AGraspWhoseEdgesTouchFloorAndJawMeetsTheLaws) {
  const PgsOptions pgs{.max_iterations = 200, .tolerance = 1e-9};
  int met_without_proximal = 0, problems = 0;
  for (const double stiffness : {300.0, 1000.0, 3000.0}) {
    const std::vector<double> compliance = lattice_compliance(stiffness);
    for (unsigned seed = 1; seed <= 4; ++seed) {
      const ContactProblem p = jaw_grasp(compliance, seed, 1e-4);
      std::vector<double> lambda;
      const PgsReport r = solve_contact(p, lambda, pgs);
      EXPECT_TRUE(r.converged) << "stiffness " << stiffness << " seed " << seed;
      EXPECT_LE(contact_residual(p, lambda), pgs.tolerance)
          << "stiffness " << stiffness << " seed " << seed;
      for (int k = 0; k < p.contacts; ++k) {  // on the cones
        const auto i = static_cast<size_t>(3 * k);
        EXPECT_GE(lambda[i], 0);
        EXPECT_LE(std::hypot(lambda[i + 1], lambda[i + 2]),
                  p.mu[static_cast<size_t>(k)] * lambda[i] * (1 + 1e-12));
      }
      std::vector<double> without;
      ActiveSetOptions no_proximal;
      no_proximal.proximal_iterations = 0;
      met_without_proximal += solve_contact(p, without, pgs, no_proximal).converged;
      ++problems;
    }
  }
  std::printf("met without the proximal iterations: %d of %d\n", met_without_proximal, problems);
}

}  // namespace
}  // namespace softbody::codec
