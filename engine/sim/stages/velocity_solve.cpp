#include "engine/sim/stages/velocity_solve.h"

#include <algorithm>

namespace softbody {

bool solve_step_velocity(const SimulationModel& m, const EdgeBlockMatrix& a,
                         const Eigen::VectorXd& b, const Vec3Array& v_k,
                         const SolverOptions& options, StepSolver& solver,
                         Eigen::VectorXd& velocity, StepStats& stats) {
  velocity = Eigen::Map<const Eigen::VectorXd>(v_k.front().data(),
                                               3 * static_cast<Eigen::Index>(v_k.size()));
  for (size_t v = 0; v < m.fixed.size(); ++v) {
    if (m.fixed[v]) velocity.segment<3>(3 * static_cast<Eigen::Index>(v)).setZero();
  }
  ConstrainedBlockOperator op(*m.topology, a, m.fixed);
  SolveReport report = solver.solve(op, b, velocity, options);
  stats.iterations += report.iterations;
  stats.matvecs += report.matvecs;
  stats.residual = std::max(stats.residual, report.relative_residual);
  stats.converged = stats.converged && report.reason == StopReason::kConverged;
  stats.stop_reason = report.reason;
  stats.solver_method = report.method;
  if (report.factorizations > 0) {
    stats.factorizations += report.factorizations;
    stats.factor_ms += report.factor.factor_ms;
  }
  stats.factor_kind = report.factor.kind;
  stats.definiteness_shift = std::max(stats.definiteness_shift, report.shift);
  stats.factor_nonzeros = report.factor.nnz_factor;
  stats.factor_fill = report.factor.fill;
  return velocity.allFinite();
}

}  // namespace softbody
