#include "engine/sim/bdf_newton.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "engine/sim/rollback.h"
#include "engine/sim/stages/backward_euler_residual.h"
#include "engine/sim/stages/bdf_stability.h"
#include "engine/sim/stages/confirmed_factor.h"
#include "engine/sim/stages/inversion_alleviation.h"
#include "engine/sim/stages/line_search.h"
#include "engine/sim/stages/nonlinearity_correction.h"
#include "engine/sim/stages/state_update.h"
#include "engine/sim/stages/step_matrix.h"
#include "engine/sim/stages/velocity_solve.h"

namespace softbody {

namespace {

// Whether two steps' contacts carry force on the same features (obstacle and vertices), in any
// order.
bool same_features(const std::vector<SimulationState::ContactMemory>& a,
                   const std::vector<SimulationState::ContactMemory>& b) {
  if (a.size() != b.size()) return false;
  const auto key = [](const SimulationState::ContactMemory& c) {
    return std::pair{c.obstacle, c.vertices};
  };
  std::vector<std::pair<int, std::array<Index, 4>>> x, y;
  for (const auto& c : a) x.push_back(key(c));
  for (const auto& c : b) y.push_back(key(c));
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  return x == y;
}

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Keep the Jacobian while fewer than this many iterations used it or while it contracts fast.
constexpr int kJacobianIterations = 4;
constexpr double kSlowContraction = 1e-3;
// A fresh Jacobian contracts far faster than this; a reused one that does not is re-evaluated.
// (0.2: on the default scene 4.95 iterations per step against 5.25 with 2; seed 000's crush 13.3
// against 15.9.)
constexpr double kStaleContraction = 0.2;
// Psi is a sum of ~n terms each exact to ~1e-16; changes below this fraction of their magnitude
// are round-off.
constexpr double kPotentialRoundOff = 1e-13;
// A Newton direction that moves the positions (RMS over the vertices) by less than this many units
// of round-off in them cannot improve the iterate: the residual is at the floor of its own
// round-off. (The bunny of bench/scenes/bunny-step.json on stiff anchors and a floor: G stalls at
// 1e-8 to 3e-7 of its terms while |h dv| shrinks to about one unit of round-off in the positions;
// a reference asking 1e-10 took 50 iterations a step and fell back at every one.)
constexpr double kRoundOffUnits = 16;

// BDF of order k in velocity form: p_{n+1} = sum_j a_j p_{n-j} + beta h v_{n+1} and
// M (v_{n+1} - sum_j a_j v_{n-j}) = beta h F(p_{n+1}, v_{n+1}).
struct BdfFormula {
  double beta;
  double history[3];  // a_0 (for p_n), a_1 (p_{n-1}), a_2 (p_{n-2})
};
constexpr BdfFormula kBdfFormulas[] = {
    {1.0, {1.0, 0.0, 0.0}},
    {2.0 / 3.0, {4.0 / 3.0, -1.0 / 3.0, 0.0}},
    {6.0 / 11.0, {18.0 / 11.0, -9.0 / 11.0, 2.0 / 11.0}},
};

bool norm_is_zero(const Vec3Array& v) {
  return std::all_of(v.begin(), v.end(), [](const Vec3& x) { return x.isZero(0); });
}

// Whether the direction dv for the velocities moves the positions `p` (the iterate's) by less
// than kRoundOffUnits of their own round-off, RMS over the vertices: |dt dv| <= units eps |p|.
bool below_position_round_off(const Vec3Array& p, double dt, const Eigen::VectorXd& dv) {
  double positions = 0;
  for (const Vec3& x : p) positions += x.squaredNorm();
  const double floor = kRoundOffUnits * std::numeric_limits<double>::epsilon();
  return dt * dt * dv.squaredNorm() <= floor * floor * positions;
}

}  // namespace

BdfNewton::BdfNewton(std::shared_ptr<const SimulationModel> model, int order)
    : Integrator(std::move(model)), order_(std::clamp(order, 1, 3)), internal_(*model_) {
  const double diagonal = bounding_box(model_->rest).diagonal();
  negligible_force_ = 1e-6 * model_->material.youngs_modulus * diagonal * diagonal;
  difference_floor_ = kDifferenceFloor * diagonal;
}

bool BdfNewton::solve(const EdgeBlockMatrix& a, const Eigen::VectorXd& b, const Vec3Array& warm,
                      const SolverOptions& options, Eigen::VectorXd& x, StepStats& stats) {
  const double residual = stats.residual;
  const bool converged = stats.converged;
  const bool ok =
      solve_step_velocity(*model_, a, b, warm, options, solver_cache_.solver(), x, stats);
  // Newton reports its own residual and convergence; the linear solves only their cost.
  stats.residual = residual;
  stats.converged = converged;
  return ok;
}

void BdfNewton::evaluate_loads_at(const SimulationState& state, double dt, const Vec3Array& v,
                                  unsigned what) {
  const SimulationModel& m = *model_;
  const size_t n = v.size();
  p_trial_.resize(n);
  for (size_t i = 0; i < n; ++i) p_trial_[i] = state.p[i] + dt * v[i];
  internal_.evaluate(p_trial_, what, forces_);
  evaluate_external_forces(loads_.anchors, loads_.obstacles, m.mass, m.gravity, p_trial_, t_next_,
                           external_);
  add_surface_loads(m.surface_loads, p_trial_, t_next_, external_);
  if (what & kEvalStiffness)
    add_surface_load_stiffness(m.surface_loads, *m.topology, p_trial_, t_next_, external_);
  // The velocity-proportional part (contact damping, friction, anchor damping) is lagged: B_H and
  // phi at p_k, as the linearized step has them. Its Jacobian is then exactly -B_H, where
  // evaluating B_H at the iterate would leave d(B_H (v - phi))/dp out of J and stall Newton in
  // frictional contact (measured on the default scene: no convergence once the sphere touches).
  external_.b_h = external_start_.b_h;
  external_.phi = external_start_.phi;
}

void BdfNewton::evaluate_at(const SimulationState& state, double dt, const Vec3Array& v,
                            bool stiffness) {
  evaluate_loads_at(
      state, dt, v,
      kEvalForces | (stiffness ? kEvalStiffness : 0u) | (energy_merit_ ? kEvalEnergy : 0u));
  const StepStart start{state.p, state.v, forces_start_.K};
  backward_euler_residual(*model_, dt, start, v, forces_, external_, g_,
                          energy_merit_ ? &psi_ : nullptr);
}

void BdfNewton::evaluate_stiffness_at(const SimulationState& state, double dt, const Vec3Array& v) {
  evaluate_loads_at(state, dt, v, kEvalStiffness);
}

LineSearchResult BdfNewton::line_search(const SimulationState& state, double dt, bool energy) {
  const auto n = v_.size();
  const auto merit_at = [&](double a) {
    trial_v_.resize(n);
    for (size_t i = 0; i < n; ++i)
      trial_v_[i] = v_[i] + a * dv_flat_.segment<3>(3 * static_cast<Eigen::Index>(i));
    evaluate_at(state, dt, trial_v_, false);
    return energy ? psi_.value : 0.5 * g_.squaredNorm();
  };
  if (energy) {
    // Psi's slope along dv is G.dv; what round-off hides in Psi is accepted as no change, so
    // that steps near the answer (where Psi's changes vanish below it) are taken whole.
    const double psi0 = psi_.value, slope = g_.dot(dv_flat_);
    if (!(slope < 0)) return {};  // not a descent direction: the caller re-evaluates J
    return minimizing_line_search(
        [&](double a) {
          const double psi = merit_at(a);
          return std::pair{psi, g_.dot(dv_flat_)};
        },
        psi0, slope, kPotentialRoundOff * psi_.magnitude);
  }
  // |G|^2 / 2 decreases along an exact Newton direction at the rate -|G|^2.
  const double phi0 = 0.5 * g_.squaredNorm();
  return armijo_line_search(merit_at, phi0, -2 * phi0);
}

bool BdfNewton::newton(const SimulationState& state, double dt, StepStats& stats) {
  const SimulationModel& m = *model_;
  const auto n = static_cast<size_t>(m.topology->num_vertices());
  const StepStart start{state.p, state.v, forces_start_.K};
  // The size of the equation's terms at p_k: |b| alone vanishes where they balance (a body at
  // rest), and a residual relative to it could never get below round-off.
  double terms = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!m.fixed.empty() && m.fixed[i]) continue;
    terms += (m.mass[i] / dt * state.v[i]).squaredNorm() + forces_start_.f[i].squaredNorm() +
             external_start_.h[i].squaredNorm();
  }
  // A body at rest under no load has terms of round-off size, which no residual gets below: it
  // took every Newton iteration and fell back to the linearized step at every step (the liver
  // slab without gravity, 12x the cost of the same slab under gravity). Forces below those of a
  // strain of 1e-6 over the body are not worth resolving.
  const double scale =
      std::max(std::max(std::sqrt(terms), negligible_force_) / (dt + m.options.beta), 1e-300);
  // Predictor: the last velocity (positions extrapolated along it), or the last free motion
  // (predictor_) where that is nearer the root (the smaller residual: a body whose contacts
  // chatter frees itself differently every other step); fixed vertices stay.
  jacobian_ = system_;  // J at p_k: the linearized step's matrix
  // Psi measures progress where every force has a potential (all but follower loads).
  energy_merit_ = external_start_.conservative;
  const auto start_from = [&](const Vec3Array& v) {
    v_ = v;
    for (size_t i = 0; i < m.fixed.size(); ++i)
      if (m.fixed[i]) v_[i].setZero();
    evaluate_at(state, dt, v_, false);
    return g_.norm();
  };
  const double from_state = start_from(state.v);
  if (predictor_ && !(start_from(*predictor_) < from_state)) start_from(state.v);
  double last_step = 0;
  int on_this_jacobian = 0;
  // Whether J was evaluated at the current iterate (the predictor differs from p_k unless v_k = 0).
  bool jacobian_current = norm_is_zero(v_);
  // J at the current iterate; Theta starts over with it.
  auto refresh_jacobian = [&] {
    evaluate_at(state, dt, v_, true);
    backward_euler_jacobian(m, dt, start, forces_, external_, jacobian_);
    ++stats.jacobian_updates;
    on_this_jacobian = 0;
    last_step = 0;
    jacobian_current = true;
  };
  const Vec3Array zero(n, Vec3::Zero());  // each correction's warm start
  bool indefinite = false;                // a direction's CG in this step met negative curvature
  for (int iteration = 0;; ++iteration) {
    const double relative = g_.norm() / scale;
    stats.residual = relative;
    if (!std::isfinite(relative)) return false;
    if (relative <= newton_tolerance_) return true;
    if (iteration >= m.options.newton.max_iterations) return false;
    const Eigen::VectorXd minus_g = -g_;
    // Descent directions first; toward the root once they had their iterations on a matrix
    // that is indefinite (NewtonOptions::descent_iterations).
    SolverOptions options = solver_options_;
    options.root_direction = indefinite && iteration >= m.options.newton.descent_iterations;
    if (!solve(jacobian_, minus_g, zero, options, dv_flat_, stats)) return false;
    // CG met negative curvature on J in this solve (the stop reason is this solve's own; a
    // shifted factor may be an earlier step's, and the shift the step's largest).
    indefinite = indefinite || stats.stop_reason == StopReason::kBreakdown;
    // A direction solved to eta that no longer moves any position beyond round-off: the residual
    // is as small as doubles make it (above a tolerance asked below that floor). Converged, and
    // said so, where J is current; a stale J's direction is checked again on a fresh one.
    // (p_trial_ holds the iterate's positions: G, in g_, was evaluated there.)
    if (stats.stop_reason == StopReason::kConverged &&
        below_position_round_off(p_trial_, dt, dv_flat_)) {
      if (jacobian_current) {
        stats.newton_round_off = true;
        return true;
      }
      refresh_jacobian();
      continue;
    }
    ++stats.newton_iterations;
    ++on_this_jacobian;
    const bool energy = energy_merit_ && !options.root_direction;
    LineSearchResult ls = line_search(state, dt, energy);
    if (!ls.accepted && jacobian_current && energy) {
      // A current Jacobian whose direction does not lower Psi (a force the potential leaves out,
      // or an inexact solve): |G| may still fall along it.
      evaluate_at(state, dt, v_, false);
      ls = line_search(state, dt, false);
    }
    stats.line_search_backtracks += ls.backtracks;
    if (!ls.accepted) {
      // No descent along this direction: a stale Jacobian is re-evaluated here and the iteration
      // repeated; a current one that fails means Newton cannot go on.
      if (jacobian_current) return false;
      refresh_jacobian();
      continue;
    }
    v_ = trial_v_;
    jacobian_current = false;
    const double step = ls.step * dv_flat_.norm();
    const double theta = last_step > 0 ? step / last_step : 0;
    last_step = step;
    // The thesis's rule keeps J for 4 iterations unless it contracts fast. Two more signs that J
    // no longer describes G: the full step was cut (a contact appeared or vanished along it:
    // measured on the default scene, 20 iterations at 0.9 contraction without this), or the
    // iterates contract slower than kStaleContraction.
    if ((on_this_jacobian >= kJacobianIterations && theta >= kSlowContraction) ||
        ls.backtracks > 0 || theta >= kStaleContraction)
      refresh_jacobian();
  }
}

bool BdfNewton::linearized_fallback(SimulationState& state, double h, StepStats& stats) {
  stats.newton_fallback = true;
  stats.converged = true;
  stats.residual = 0;
  stats.tolerance = fallback_solver_options_.tolerance;
  if (!solve_step_velocity(*model_, system_, rhs_, start_.v, fallback_solver_options_,
                           solver_cache_.solver(), solution_, stats))
    return false;
  advance_positions(start_.p, solution_, h, p_next_, v_next_);
  correct_nonlinearity(*model_, h, forces_start_, system_, rhs_, internal_, forces_next_, p_next_,
                       v_next_, stats);
  // The linearized step's free motion predicts the next step's Newton as a Newton step's does
  // (where it is the nearer start): without it, a step after a fallback started from the held
  // velocity and often fell back too (scenes/grasp.json: 75 of 120 steps, 50 with it).
  const Vec3Array free_v = v_next_;  // contact moves v_next_
  const std::vector<SimulationState::ContactMemory> held_before = state.contact_memory;
  if (!contact_.run(*model_, loads_.constraint_obstacles, state.t, t_next_, h, system_,
                    solver_cache_.solver(), state, p_next_, v_next_, stats))
    return false;
  return accept_with_free_motion(state, held_before, free_v, stats);
}

bool BdfNewton::accept_with_free_motion(
    SimulationState& state, const std::vector<SimulationState::ContactMemory>& held_before,
    const Vec3Array& free_v, StepStats& stats) {
  // Where contacts hold (the same features carry force as in the step before) the free motion
  // repeats: it is the next step's predictor. A contact set that changes (a cube chattering on
  // its floor) frees the body differently from step to step.
  const bool held = contact_.last().active > 0 && same_features(held_before, state.contact_memory);
  Vec3Array predictor;
  if (held) predictor = free_v;  // copied before accept, which may reuse the buffers
  if (!accept(state, stats)) return false;
  if (held)
    state.free_motion = {std::move(predictor), step_dt_, state.t};
  else
    state.free_motion = {};
  return true;
}

int BdfNewton::usable_order(const SimulationState& state, double dt) const {
  const SimulationState::History& history = state.history;
  const bool valid = history.t == state.t && history.dt == dt;
  const int entries = valid ? static_cast<int>(history.p.size()) : 0;
  const int allowed = valid ? order_allowed(history.order_limit) : order_;
  return std::min({order_, 1 + entries, allowed});
}

void BdfNewton::form_start(const SimulationState& state, int order) {
  const BdfFormula& formula = kBdfFormulas[static_cast<size_t>(order - 1)];
  const size_t n = state.p.size();
  start_.p.resize(n);
  start_.v.resize(n);
  for (size_t i = 0; i < n; ++i) {
    Vec3 p = formula.history[0] * state.p[i], v = formula.history[0] * state.v[i];
    for (int j = 1; j < order; ++j) {
      p += formula.history[j] * state.history.p[static_cast<size_t>(j - 1)][i];
      v += formula.history[j] * state.history.v[static_cast<size_t>(j - 1)][i];
    }
    start_.p[i] = p;
    start_.v[i] = v;
  }
}

bool BdfNewton::accept(SimulationState& state, StepStats& stats) {
  const double t_start = state.t;
  Vec3Array previous_p, previous_v;
  if (order_ > 1) {
    previous_p = state.p;
    previous_v = state.v;
  }
  if (!accept_update(*model_, p_next_, v_next_, t_next_, state, stats)) return false;
  internal_.commit(state);
  SimulationState::History& history = state.history;
  if (order_ == 1) {
    history = {};
    return true;
  }
  if (!(history.t == t_start && history.dt == step_dt_)) {
    // A retry with substeps (a rollback, which a growing mode may well cause) changes dt: the
    // watch's windows start again, but a limit in force and the count of limits stay.
    const SimulationState::History::OrderLimit limit = history.order_limit;
    history = {};
    history.order_limit.reduced_steps = limit.reduced_steps;
    history.order_limit.reductions = limit.reductions;
  }
  if (order_ == 3) {
    const bool watched =
        step_order_ == 3 && history.order_limit.reduced_steps == 0 && history.p.size() == 2;
    const double difference =
        watched ? third_difference_rms(state.p, previous_p, history.p[0], history.p[1]) : 0;
    const double motion = watched ? rms_distance(state.p, previous_p) : 0;
    observe_step(history.order_limit, step_order_, difference, motion, difference_floor_);
  }
  history.p.insert(history.p.begin(), std::move(previous_p));
  history.v.insert(history.v.begin(), std::move(previous_v));
  history.p.resize(std::min(history.p.size(), static_cast<size_t>(order_ - 1)));
  history.v.resize(history.p.size());
  history.dt = step_dt_;
  history.t = state.t;
  return true;
}

bool BdfNewton::attempt(SimulationState& state, double dt, bool /*correction*/, StepStats& stats) {
  const SimulationModel& m = *model_;
  t_next_ = state.t + dt;
  step_dt_ = dt;
  alleviate(m, dt, loads_.anchors, state, stats);
  const int order = usable_order(state, dt);
  stats.bdf_order = order;
  step_order_ = order;
  form_start(state, order);
  const SimulationState::FreeMotion& free_motion = state.free_motion;
  predictor_ =
      free_motion.t == state.t && free_motion.dt == dt && free_motion.v.size() == state.v.size()
          ? &free_motion.v
          : nullptr;
  // BDF's step equations are backward Euler's from (p^, v^) with the step beta dt.
  const double h = kBdfFormulas[static_cast<size_t>(order - 1)].beta * dt;
  solver_cache_.load(state);
  auto t0 = Clock::now();
  // The viscous rate terms differentiate the strain by the same formula as the positions.
  ViscousModel::RateFormula rate;
  if (order > 1) {
    const BdfFormula& formula = kBdfFormulas[static_cast<size_t>(order - 1)];
    rate.dt = h;
    rate.positions.push_back(&state.p);
    rate.weights.push_back(formula.history[0]);
    for (int j = 1; j < order; ++j) {
      rate.positions.push_back(&state.history.p[static_cast<size_t>(j - 1)]);
      rate.weights.push_back(formula.history[j]);
    }
  }
  internal_.begin(state, dt, order > 1 ? &rate : nullptr);
  evaluate_step_forces(m, loads_, start_.p, t_next_, internal_, forces_start_, external_start_);
  stats.forces_ms += ms_since(t0);
  stats.contacts = external_start_.contacts;
  t0 = Clock::now();
  assemble_step_system(m, h, forces_start_, external_start_, start_.v, system_, rhs_);
  stats.assembly_ms += ms_since(t0);

  t0 = Clock::now();
  const bool converged = newton(start_, h, stats);
  solver_cache_.store(state);
  stats.solve_ms += ms_since(t0);
  if (!converged) {
    const bool ok = linearized_fallback(state, h, stats);
    solver_cache_.store(state);
    return ok;
  }
  const auto n = static_cast<size_t>(m.topology->num_vertices());
  p_next_.resize(n);
  for (size_t i = 0; i < n; ++i) p_next_[i] = start_.p[i] + h * v_[i];
  v_next_ = v_;
  stats.contacts = external_.contacts;
  // Contact's fresh compliance comes from the step matrix where the free motion ended, evaluated
  // only when there are contacts and the factor in use was not confirmed for this configuration.
  StepSolver& solver = solver_cache_.solver();
  FreeMotionMatrix free_motion_matrix;
  free_motion_matrix.confirmed = [&] {
    // external_ holds the external forces at the free motion: Newton's converged residual was
    // evaluated there.
    return !step_matrix_has_other_terms(m, loads_, external_start_, external_) &&
           confirmed_factor_holds(*m.topology, m.rest, state.confirmed_factor.get(),
                                  solver.factorizations(), h, start_.p, p_next_,
                                  m.contact.fresh_tolerance);
  };
  free_motion_matrix.evaluate = [&] {
    state.confirmed_factor.reset();  // this evaluation's comparison replaces it (confirm)
    evaluate_stiffness_at(start_, h, v_);
    backward_euler_jacobian(m, h, {start_.p, start_.v, forces_start_.K}, forces_, external_,
                            jacobian_);
  };
  free_motion_matrix.confirmable = [&] {
    // external_ was evaluated at the free motion with the matrix.
    return !step_matrix_has_other_terms(m, loads_, external_start_, external_);
  };
  free_motion_matrix.confirm = [&] {
    // Before the contact forces move p_next_: it is still the free motion.
    state.confirmed_factor = std::make_shared<const SimulationState::ConfirmedFactor>(
        SimulationState::ConfirmedFactor{start_.p, p_next_, h, solver.factorizations()});
  };
  const std::vector<SimulationState::ContactMemory> held_before = state.contact_memory;
  const bool contact_ok =
      contact_.run(m, loads_.constraint_obstacles, state.t, t_next_, h, jacobian_, solver, state,
                   p_next_, v_next_, stats, free_motion_matrix);
  solver_cache_.store(state);
  if (!contact_ok) return false;
  return accept_with_free_motion(state, held_before, v_, stats);
}

StepStats BdfNewton::step(SimulationState& state, const StepInputs& inputs) {
  const auto start = Clock::now();
  const IntegratorOptions& o = model_->options;
  loads_ = step_loads(*model_, inputs, state.t);
  solver_options_ = o.solver;
  solver_options_.tolerance = o.newton.forcing;
  solver_options_.newton_direction = true;
  newton_tolerance_ = std::max(o.newton.tolerance, inputs.tolerance);
  fallback_solver_options_ = o.solver;
  if (inputs.tolerance > 0)
    fallback_solver_options_.tolerance = std::max(o.solver.tolerance, inputs.tolerance);
  StepStats stats;
  stats.tolerance = newton_tolerance_;
  step_with_rollback(o, state, stats,
                     [this](SimulationState& s, double dt, bool correction, StepStats& st) {
                       return attempt(s, dt, correction, st);
                     });
  stats.inverted_elements = count_inverted(*model_->topology, state.p);
  stats.step_ms = ms_since(start);
  return stats;
}

}  // namespace softbody
