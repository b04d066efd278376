#include "engine/sim/stages/nonlinearity_correction.h"

#include <algorithm>

namespace softbody {

void correct_nonlinearity(const SimulationModel& m, double dt, const ForceOutput& forces,
                          const EdgeBlockMatrix& a, const Eigen::VectorXd& b,
                          StepInternalForces& internal, ForceOutput& forces_next, Vec3Array& p_next,
                          Vec3Array& v_next, StepStats& stats) {
  const IntegratorOptions& o = m.options;
  const MeshTopology& topo = *m.topology;
  const auto n = static_cast<size_t>(topo.num_vertices());
  const double denom = dt + o.beta;
  internal.evaluate(p_next, kEvalForces, forces_next);
  Vec3Array kv;
  forces.K.multiply(topo, v_next, kv);
  for (size_t v = 0; v < n; ++v) {
    if (!m.fixed.empty() && m.fixed[v]) continue;
    const Vec3 e = (forces_next.f[v] - forces.f[v] - dt * kv[v]) / denom;
    const Vec3 b_v = b.segment<3>(3 * static_cast<Eigen::Index>(v));
    const double trace = a.vertex_blocks[v].trace();
    const double bound =
        b_v.squaredNorm() + trace * trace * o.correction_speed * o.correction_speed;
    double lambda = 1;
    while (lambda * lambda * (b_v + lambda * e).squaredNorm() > bound && lambda > 1e-6)
      lambda *= 0.9;
    if (lambda < 1) {
      p_next[v] -= (1 - lambda) * dt * v_next[v];
      v_next[v] *= lambda;
      ++stats.corrected_vertices;
      stats.min_lambda = std::min(stats.min_lambda, lambda);
    }
  }
}

}  // namespace softbody
