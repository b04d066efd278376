#include "engine/sim/potential_minimizer.h"

#include <cmath>
#include <stdexcept>

#include "engine/parallel/parallel.h"
#include "engine/sim/rollback.h"
#include "engine/sim/stages/energy_guard.h"
#include "engine/sim/stages/initial_guess.h"
#include "engine/sim/stages/inversion_alleviation.h"
#include "engine/sim/stages/state_update.h"

namespace softbody {
namespace {

// The energy balance's round-off, relative to the body's energy; and how often a step that
// stored created energy in the deformation is halved at most (2^-20 of it is its start).
constexpr double kBalanceRoundOff = 1e-9;
constexpr int kMaxShortenings = 20;

}  // namespace

void check_potential_model(const SimulationModel& model, const char* integrator) {
  if (model.viscous)
    throw std::invalid_argument(std::string("integrator '") + integrator +
                                "' does not support viscous materials (material.viscoelastic, "
                                "rate_damping, bulk_viscosity): their stresses have no potential "
                                "to minimize; use implicit-euler or bdf2/bdf3");
}

void PotentialMinimizer::finish_statistics(double first_gradient, const Vec3Array& gradient,
                                           double energy, StepStats& stats) {
  const double last_gradient = std::sqrt(dot(gradient, gradient));
  stats.residual = first_gradient > 0 ? last_gradient / first_gradient : 0;
  stats.converged = std::isfinite(last_gradient) && std::isfinite(energy);
}

double dot(const Vec3Array& a, const Vec3Array& b) {
  return deterministic_sum(static_cast<std::ptrdiff_t>(a.size()), [&](std::ptrdiff_t i) {
    return a[static_cast<size_t>(i)].dot(b[static_cast<size_t>(i)]);
  });
}

PotentialMinimizer::PotentialMinimizer(std::shared_ptr<const SimulationModel> model,
                                       const char* name)
    : Integrator((check_potential_model(*model, name), model)),
      potential_(model_),
      matrix_(*model_),
      name_(name),
      workspace_(model_->forces->make_workspace()) {}

bool PotentialMinimizer::attempt(SimulationState& state, double h, StepStats& stats) {
  const SimulationModel& m = *model_;
  alleviate(m, h, loads_.anchors, state, stats);
  potential_.begin_step(state, loads_, h);
  Vec3Array x = adaptive_initial_guess(m, state, h);
  // The penalty contacts of the initial guess enter the matrix (those that begin during the
  // iterations are left to the line search).
  const long factorizations = matrix_.factorizations();
  matrix_.prepare(h, loads_.anchors, potential_.penalty_contacts(x));
  stats.factorizations += static_cast<int>(matrix_.factorizations() - factorizations);
  minimize(x, stats);
  // What the unconverged step created beyond the work done on the body is taken back out of its
  // deformational velocities; what is stored in the deformation, by shortening the step
  // (stages/energy_guard.h).
  Vec3Array v(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    v[i] = (!m.fixed.empty() && m.fixed[i]) ? Vec3::Zero() : Vec3((x[i] - state.p[i]) / h);
  const double elastic_before = elastic_energy(state.p);
  double elastic_after = elastic_energy(x);
  const EnergyBalance balance(m, loads_, {state.p, state.v, state.t, elastic_before}, h);
  const double created = balance.created({x, v, state.t + h, elastic_after});
  remove_created_energy(m, x, v, created);
  // Measured again: with fixed vertices the deformational part is not orthogonal to the rigid
  // one over the free vertices alone, so the kinetic energy need not fall by exactly what was
  // taken.
  double left = balance.created({x, v, state.t + h, elastic_after});
  const double tolerance =
      kBalanceRoundOff * (std::abs(elastic_before) + kinetic_energy(m.mass, state.v));
  if (left > tolerance) {
    // x_n + theta (x - x_n) with velocities theta v: at theta -> 0 the step keeps W(x_n) and no
    // kinetic energy, so some theta in (0, 1) balances (nothing that does work ever forbids it).
    Vec3Array x_short(x.size()), v_short(x.size());
    double theta = 1;
    for (int halving = 0; halving < kMaxShortenings && left > tolerance; ++halving) {
      theta *= 0.5;
      for (size_t i = 0; i < x.size(); ++i) {
        x_short[i] = state.p[i] + theta * (x[i] - state.p[i]);
        v_short[i] = theta * v[i];
      }
      elastic_after = elastic_energy(x_short);
      left = balance.created({x_short, v_short, state.t + h, elastic_after});
    }
    x.swap(x_short);
    v.swap(v_short);
  }
  stats.energy_removed += std::max(created, 0.0) - std::max(left, 0.0);
  if (!accept_positions(m, std::move(x), std::move(v), h, state, stats)) return false;
  accepted_p_ = state.p;
  accepted_elastic_ = elastic_after;
  return true;
}

double PotentialMinimizer::elastic_energy(const Vec3Array& p) {
  double energy = 0;
  if (potential_.elastic_energy_at(p, energy)) return energy;
  if (p == accepted_p_) return accepted_elastic_;
  ForceOutput out;
  model_->forces->evaluate(p, kEvalEnergy, *workspace_, out);
  return out.energy;
}

StepStats PotentialMinimizer::step(SimulationState& state, const StepInputs& inputs) {
  loads_ = step_loads(*model_, inputs, state.t);
  return fixed_iteration_step(
      *model_, name_, state,
      [this](SimulationState& s, double h, StepStats& st) { return attempt(s, h, st); });
}

}  // namespace softbody
