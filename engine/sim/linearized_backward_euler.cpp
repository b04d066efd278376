#include "engine/sim/linearized_backward_euler.h"

#include <algorithm>
#include <chrono>

#include "engine/sim/rollback.h"
#include "engine/sim/stages/inversion_alleviation.h"
#include "engine/sim/stages/nonlinearity_correction.h"
#include "engine/sim/stages/state_update.h"
#include "engine/sim/stages/step_matrix.h"
#include "engine/sim/stages/velocity_solve.h"

namespace softbody {
namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

}  // namespace

LinearizedBackwardEuler::LinearizedBackwardEuler(std::shared_ptr<const SimulationModel> model)
    : Integrator(std::move(model)), internal_(*model_) {}

// One algU step of size dt (seed 000 eqs. 17-19), followed by algUNC when `correction` is set.
bool LinearizedBackwardEuler::attempt(SimulationState& state, double dt, bool correction,
                                      StepStats& stats) {
  const SimulationModel& m = *model_;
  const double t_next = state.t + dt;
  StepSolver& solver = solver_cache_.load(state);
  alleviate(m, dt, loads_.anchors, state, stats);

  auto t0 = Clock::now();
  internal_.begin(state, dt);
  evaluate_step_forces(m, loads_, state.p, t_next, internal_, forces_, external_);
  stats.forces_ms += ms_since(t0);
  stats.contacts = external_.contacts;

  t0 = Clock::now();
  assemble_step_system(m, dt, forces_, external_, state.v, system_, rhs_);
  stats.assembly_ms += ms_since(t0);

  t0 = Clock::now();
  const bool solved =
      solve_step_velocity(m, system_, rhs_, state.v, solver_options_, solver, velocity_, stats);
  solver_cache_.store(state);
  stats.solve_ms += ms_since(t0);
  if (!solved) return false;

  advance_positions(state.p, velocity_, dt, p_next_, v_next_);
  if (correction) {
    t0 = Clock::now();
    correct_nonlinearity(m, dt, forces_, system_, rhs_, internal_, forces_next_, p_next_, v_next_,
                         stats);
    stats.correction_ms += ms_since(t0);
  }
  if (!contact_.run(m, loads_.constraint_obstacles, state.t, t_next, dt, system_, solver, state,
                    p_next_, v_next_, stats))
    return false;
  solver_cache_.store(state);
  if (!accept_update(m, p_next_, v_next_, t_next, state, stats)) return false;
  internal_.commit(state);
  return true;
}

StepStats LinearizedBackwardEuler::step(SimulationState& state, const StepInputs& inputs) {
  const auto start = Clock::now();
  loads_ = step_loads(*model_, inputs, state.t);
  solver_options_ = model_->options.solver;
  if (inputs.tolerance > 0)
    solver_options_.tolerance = std::max(solver_options_.tolerance, inputs.tolerance);
  StepStats stats;
  stats.tolerance = solver_options_.tolerance;
  step_with_rollback(model_->options, state, stats,
                     [this](SimulationState& s, double dt, bool correction, StepStats& st) {
                       return attempt(s, dt, correction, st);
                     });
  stats.inverted_elements = count_inverted(*model_->topology, state.p);
  stats.step_ms = ms_since(start);
  return stats;
}

}  // namespace softbody
