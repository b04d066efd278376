#include "engine/sim/stages/step_matrix.h"

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

}  // namespace softbody
