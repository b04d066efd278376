#include "engine/sim/stages/contact_stage.h"

#include <chrono>

namespace softbody {

bool ContactStage::run(const SimulationModel& model, std::span<const Obstacle> obstacles,
                       double t_start, double t_next, double h, const EdgeBlockMatrix& a,
                       StepSolver& solver, SimulationState& state, Vec3Array& p, Vec3Array& v,
                       StepStats& stats, const FreeMotionMatrix& matrix) {
  result_ = {};
  if (obstacles.empty() && !model.contact.self) {
    state.contact_memory.clear();
    return true;
  }
  const auto start = std::chrono::steady_clock::now();
  if (!contact_) contact_ = std::make_unique<ConstraintContact>(model);
  const ConstrainedBlockOperator op(*model.topology, a, model.fixed);
  const long factorizations = solver.factorizations();
  const bool ok = contact_->resolve(obstacles, t_start, t_next, h, state.p, op, solver, p, v,
                                    state.contact_memory, result_, matrix);
  stats.factorizations += static_cast<int>(solver.factorizations() - factorizations);
  stats.constraint_contacts += static_cast<int>(result_.points.size());
  stats.active_contacts += result_.active;
  stats.max_penetration = std::max(stats.max_penetration, result_.max_penetration);
  stats.pgs_residual = std::max(stats.pgs_residual, result_.pgs_residual);
  stats.pgs_iterations += result_.pgs_iterations;
  stats.contact_newton_iterations += result_.newton_iterations;
  StepStats::ContactTimes& times = stats.contact_times;
  times.detect_ms += result_.detect_ms;
  times.factor_ms += result_.factor_ms;
  times.compliance_ms += result_.build_ms + result_.rebuild_ms;
  times.solve_ms += result_.pgs_ms;
  times.correction_ms += result_.correction_ms;
  stats.obstacle_forces = result_.obstacle_forces;
  stats.obstacle_stiffness = result_.obstacle_stiffness;
  stats.obstacle_contacts = result_.obstacle_contacts;
  stats.obstacle_models = result_.obstacle_models;
  stats.contact_ms +=
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return ok;
}

}  // namespace softbody
