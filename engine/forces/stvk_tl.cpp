// Total-Lagrangian StVK per tetrahedron (seed 003 Appendix B, eqs. 48-51), written out in a form
// with few operations: with a_i = F alpha_i and B = F F^T,
//   f_i  = V F S alpha_i
//   K_ij = V [ (alpha_i . S alpha_j) I + mu (alpha_i . alpha_j) B + mu a_j a_i^T + lambda a_i a_j^T
//   ].
#include "engine/forces/element_models.h"

namespace softbody {

namespace {

// With a prestress S0 the stress is S = S0 + lambda tr(E) I + 2 mu E and the energy density
// S0 : E + mu |E|^2 + lambda/2 tr(E)^2; K gains nothing else (S enters its geometric term).
template <bool kPrestressed>
void stvk_tl_kernel(const Vec3Array& p, const Tet& tet, const TetRestGeometry& g, double lambda,
                    double mu, const Mat3* prestress, unsigned what, ElementContribution& c) {
  const Mat3 f = deformation_gradient(p, tet, g);
  const Mat3 e = 0.5 * (f.transpose() * f - Mat3::Identity());
  const double tr = e.trace();
  Mat3 s = 2 * mu * e;
  s.diagonal().array() += lambda * tr;
  const double v = g.volume;
  c.energy = v * (mu * e.squaredNorm() + 0.5 * lambda * tr * tr);
  if constexpr (kPrestressed) {
    s += *prestress;
    c.energy += v * prestress->cwiseProduct(e).sum();
  }
  if (what & kEvalOneVertex) {
    // One vertex's force and diagonal block (a vertex-local solver's sweep): K_ii alone, the
    // `block` below with j = i and its two outer products merged (routing it through `block`
    // made a VBD sweep on the knight 10 % slower).
    const auto i = static_cast<size_t>(c.vertex);
    const Vec3 s_alpha_i = s * g.shape_gradient[i], a_i = f * g.shape_gradient[i];
    if (what & kEvalForces) c.f[i] = v * (f * s_alpha_i);
    if (!(what & kEvalStiffness)) return;
    const double alpha_ii = g.shape_gradient[i].squaredNorm();
    Mat3 k = (v * mu * alpha_ii) * (f * f.transpose());
    k.noalias() += (v * (mu + lambda)) * a_i * a_i.transpose();
    k.diagonal().array() += v * g.shape_gradient[i].dot(s_alpha_i);
    c.diagonal[i] = k;
    return;
  }
  std::array<Vec3, 4> s_alpha, a;
  for (size_t i = 0; i < 4; ++i) {
    s_alpha[i] = s * g.shape_gradient[i];
    a[i] = f * g.shape_gradient[i];
  }
  if (what & kEvalForces) {
    for (size_t i = 0; i < 4; ++i) c.f[i] = v * (f * s_alpha[i]);
  }
  if (!(what & kEvalStiffness)) return;
  const Mat3 b = f * f.transpose();
  auto block = [&](size_t i, size_t j) {
    Mat3 k = (v * mu * g.shape_gradient[i].dot(g.shape_gradient[j])) * b;
    k.noalias() += (v * mu) * a[j] * a[i].transpose();
    k.noalias() += (v * lambda) * a[i] * a[j].transpose();
    k.diagonal().array() += v * g.shape_gradient[i].dot(s_alpha[j]);
    return k;
  };
  c.set_stiffness(what, block);
}

}  // namespace

void stvk_tl_element(const Vec3Array& p, const Tet& tet, const TetRestGeometry& g, double lambda,
                     double mu, unsigned what, ElementContribution& c) {
  stvk_tl_kernel<false>(p, tet, g, lambda, mu, nullptr, what, c);
}

void stvk_tl_element_prestressed(const Vec3Array& p, const Tet& tet, const TetRestGeometry& g,
                                 double lambda, double mu, const Mat3& prestress, unsigned what,
                                 ElementContribution& c) {
  stvk_tl_kernel<true>(p, tet, g, lambda, mu, &prestress, what, c);
}

}  // namespace softbody
