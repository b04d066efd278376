#include "engine/sim/stages/step_matrix.h"

#include <algorithm>

#include "engine/parallel/parallel.h"

namespace softbody {

void assemble_step_system(const SimulationModel& m, double dt, const ForceOutput& forces,
                          const ExternalForceOutput& external, const Vec3Array& v_k,
                          EdgeBlockMatrix& a, Eigen::VectorXd& b) {
  const IntegratorOptions& o = m.options;
  const auto n = static_cast<size_t>(m.topology->num_vertices());
  const double denom = dt + o.beta;
  a.edge_blocks = forces.K.edge_blocks;
  a.vertex_blocks.resize(n);
  b.resize(3 * static_cast<Eigen::Index>(n));
  for (const auto& [e, k] : external.k_h_edges)
    a.edge_blocks[static_cast<size_t>(e)] -= dt / denom * k;
  assign_skew_edges(external, m.topology->num_edges(), dt / denom, a);
  parallel_for(static_cast<std::ptrdiff_t>(n), [&](std::ptrdiff_t vi) {
    const auto v = static_cast<size_t>(vi);
    Mat3 block = forces.K.vertex_blocks[v] - (dt * external.k_h[v] + external.b_h[v]) / denom;
    block.diagonal().array() += (1 / dt + o.alpha) * m.mass[v] / denom;
    a.vertex_blocks[v] = block;
    const bool fixed = !m.fixed.empty() && m.fixed[v];
    b.segment<3>(3 * vi) = fixed ? Vec3::Zero()
                                 : Vec3((external.h[v] - external.b_h[v] * external.phi[v] -
                                         forces.f[v] + m.mass[v] / dt * v_k[v]) /
                                        denom);
  });
}

void assign_skew_edges(const ExternalForceOutput& external, Index num_edges, double scale,
                       EdgeBlockMatrix& a) {
  a.edge_skew.clear();
  if (external.k_h_edges_skew.empty()) return;
  a.edge_skew.assign(static_cast<size_t>(num_edges), Mat3::Zero());
  for (const auto& [e, s] : external.k_h_edges_skew)
    a.edge_skew[static_cast<size_t>(e)] -= scale * s;
  // On a closed surface under one pressure the faces' skew parts cancel on every edge: what is
  // left is round-off, and keeping it would make A non-symmetric (GMRES instead of CG).
  double skew = 0, symmetric = 0;
  for (const auto& [e, s] : external.k_h_edges_skew)
    skew = std::max(skew, a.edge_skew[static_cast<size_t>(e)].cwiseAbs().maxCoeff());
  for (const auto& [e, k] : external.k_h_edges)
    symmetric = std::max(symmetric, scale * k.cwiseAbs().maxCoeff());
  if (skew <= 1e-10 * symmetric) a.edge_skew.clear();
}

}  // namespace softbody
