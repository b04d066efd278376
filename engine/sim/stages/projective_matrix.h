// The constant matrix of projective dynamics (Bouaziz et al. 2014), which the `projective`
// integrator solves with and `quasi-newton` (Liu et al. 2017) takes as its initial Hessian:
//   A = (1 + alpha h) M / h^2 + (1 + beta / h) L + anchors + contacts,
//   L = sum_e w V_e G_e^T G_e (x) I3,   anchors: (k + c / h) on each anchored vertex, contacts:
//   K_N,
// G_e the gradient operator of tetrahedron e (F_e = sum_a x_a g_a^T) and w one weight for the
// body: 2 mu + lambda, the P-wave modulus. For the as-rigid-as-possible energy mu |F - R|^2
// (lambda = 0) that is PD's own weight 2 mu; with lambda it covers the volumetric stiffness of a
// small strain, so the iteration does not overshoot dilation modes (a weight below mu + 1.5
// lambda can; the integrators' energy guard and line search catch what remains). Its blocks are
// scalars times I3: one n x n factor, three right-hand sides (VertexScalarSystem), refactored only
// when h changes or many anchors come or go (a scene's, at its start or release); a few (a tool's
// grab, which changes every few steps) are a low-rank change of that factor. Penalty contacts of
// the step's initial guess add their K_N to their vertices (isotropically, so A stays scalar per
// vertex; refactored when the contact set changes).
#pragma once

#include <span>

#include "engine/sim/simulation.h"
#include "engine/solvers/vertex_scalar_system.h"

namespace softbody {

class ProjectiveMatrix {
 public:
  explicit ProjectiveMatrix(const SimulationModel& model);

  // Ready for steps of h with these anchors and penalty contacts (vertex, normal stiffness K_N),
  // sorted by vertex, at most one per vertex.
  void prepare(double h, std::span<const Anchor> anchors,
               std::vector<std::pair<Index, double>> contacts = {});
  // x = A^-1 b (fixed vertices: x_i = b_i).
  void solve(const Vec3Array& b, Vec3Array& x) const { system_.solve(b, x); }
  // y = A x, for tests.
  Vec3Array multiply(const Vec3Array& x) const { return system_.multiply(x); }

  double weight() const { return weight_; }
  // The last factorization's statistics (time, fill), for benchmarks.
  const FactorInfo& factor_info() const { return factor_info_; }

 private:
  const SimulationModel& model_;
  double weight_;
  std::vector<double> laplacian_diagonal_, laplacian_edges_;  // L with w = 1
  VertexScalarSystem system_;
  // A change of anchors beyond this many vertices is factored in rather than applied by the
  // Woodbury identity (whose cost grows with its rank: k solves once, an n x k product per solve).
  static constexpr size_t kMaxLowRankChange = 32;
  double factored_h_ = 0;
  std::vector<std::pair<Index, double>> factored_diagonal_;  // (vertex, addition) in the factor
  std::vector<std::pair<Index, double>> factored_contacts_;
  long factorizations_ = 0;

 public:
  long factorizations() const { return factorizations_; }
  FactorInfo factor_info_;
};

}  // namespace softbody
