#include "engine/sim/stages/backward_euler_residual.h"

#include <cmath>

#include "engine/parallel/parallel.h"
#include "engine/sim/stages/step_matrix.h"

namespace softbody {

void backward_euler_residual(const SimulationModel& m, double dt, const StepStart& start,
                             const Vec3Array& v, const ForceOutput& forces,
                             const ExternalForceOutput& external, Eigen::VectorXd& g,
                             StepPotential* potential) {
  const IntegratorOptions& o = m.options;
  const auto n = static_cast<size_t>(m.topology->num_vertices());
  const double denom = dt + o.beta;
  // beta K_k v: G's damping term and Psi's, computed once for both.
  Vec3Array damping;
  if (o.beta != 0) start.k.multiply(*m.topology, v, damping);
  g.resize(3 * static_cast<Eigen::Index>(n));
  parallel_for(static_cast<std::ptrdiff_t>(n), [&](std::ptrdiff_t vi) {
    const auto i = static_cast<size_t>(vi);
    if (!m.fixed.empty() && m.fixed[i]) {
      g.segment<3>(3 * vi).setZero();
      return;
    }
    Vec3 r = ((1 / dt + o.alpha) * v[i] - start.v[i] / dt) * m.mass[i] + forces.f[i] -
             external.h[i] - external.b_h[i] * (v[i] - external.phi[i]);
    if (o.beta != 0) r += o.beta * damping[i];
    g.segment<3>(3 * vi) = r / denom;
  });
  if (!potential) return;
  double sum = 0, size = 0;  // Psi's terms, and their absolute values
  for (size_t i = 0; i < n; ++i) {
    if (!m.fixed.empty() && m.fixed[i]) continue;
    const double inertia = m.mass[i] * (0.5 / dt + 0.5 * o.alpha) * v[i].squaredNorm();
    const double momentum = m.mass[i] * v[i].dot(start.v[i]) / dt;
    const Vec3 slip = v[i] - external.phi[i];
    const double friction = -0.5 * slip.dot(external.b_h[i] * slip);
    const double damped = o.beta != 0 ? 0.5 * o.beta * v[i].dot(damping[i]) : 0.0;
    sum += inertia - momentum + friction + damped;
    size += inertia + std::abs(momentum) + std::abs(friction) + std::abs(damped);
  }
  sum += (forces.energy + external.potential) / dt;
  size += (std::abs(forces.energy) + std::abs(external.potential)) / dt;
  potential->value = sum / denom;
  potential->magnitude = size / denom;
}

void backward_euler_jacobian(const SimulationModel& m, double dt, const StepStart& start,
                             const ForceOutput& forces, const ExternalForceOutput& external,
                             EdgeBlockMatrix& jacobian) {
  const IntegratorOptions& o = m.options;
  const auto n = static_cast<size_t>(m.topology->num_vertices());
  const auto ne = static_cast<size_t>(m.topology->num_edges());
  const double denom = dt + o.beta;
  const double wk = o.beta / denom, wp = dt / denom;
  jacobian.vertex_blocks.resize(n);
  jacobian.edge_blocks.resize(ne);
  parallel_for(static_cast<std::ptrdiff_t>(ne), [&](std::ptrdiff_t e) {
    const auto i = static_cast<size_t>(e);
    jacobian.edge_blocks[i] = wp * forces.K.edge_blocks[i];
    if (o.beta != 0) jacobian.edge_blocks[i] += wk * start.k.edge_blocks[i];
  });
  for (const auto& [e, k] : external.k_h_edges)
    jacobian.edge_blocks[static_cast<size_t>(e)] -= dt / denom * k;
  assign_skew_edges(external, m.topology->num_edges(), dt / denom, jacobian);
  parallel_for(static_cast<std::ptrdiff_t>(n), [&](std::ptrdiff_t vi) {
    const auto i = static_cast<size_t>(vi);
    Mat3 block = wp * forces.K.vertex_blocks[i] - (dt * external.k_h[i] + external.b_h[i]) / denom;
    if (o.beta != 0) block += wk * start.k.vertex_blocks[i];
    block.diagonal().array() += (1 / dt + o.alpha) * m.mass[i] / denom;
    jacobian.vertex_blocks[i] = block;
  });
}

}  // namespace softbody
