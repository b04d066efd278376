// The settings of a simulation's time integration: which integrator, its step, damping, robustness
// and the solver options of its linear solves. Part of the immutable model.
#pragma once

#include <string>
#include <vector>

#include "engine/solvers/solver_options.h"

namespace softbody {

// The time steps a scene or a live session may use [s], one range everywhere (scene files, --set,
// UpdateSettings): from 0.1 ms (haptic-rate stepping) to 100 ms (below 10 steps per second an
// interactive simulation no longer shows motion, and contact resolves poorly).
constexpr double kMinTimeStep = 1e-4, kMaxTimeStep = 0.1;

// The integrator family (engine/sim/integrator.h); names in integrator_registry.cpp.
enum class IntegratorType {
  kLinearizedBackwardEuler,  // seed 000 algU + algUNC: one linear solve per step
  kImplicitEuler,            // backward Euler solved by inexact simplified Newton (seed 001 §4)
  kBdf2,                     // BDF of order 2, the same Newton
  kBdf3,                     // BDF of order 3, the same Newton
  kVbd,                      // Vertex Block Descent (seed 004's issue): fixed sweeps, no matrix
  kProjective,               // projective dynamics: local/global, one constant factor
  kQuasiNewton,              // L-BFGS with projective dynamics' matrix, line search
  kXpbd,                     // extended position-based dynamics: compliant constraints
};

// Newton iterations on the nonlinear step equations (implicit-euler).
struct NewtonOptions {
  // Converged when |G(v)| <= tolerance (|M v_k / T| + |f(p_k)| + |h(p_k)|) / (T + beta): a
  // residual relative to the size of the step equation's terms (not to their sum, which vanishes
  // at equilibrium). A server under load loosens this (with its floor), never `forcing`.
  double tolerance = 1e-6;
  // eta: the relative residual each linear solve reaches (inexact Newton); it is the StepSolver's
  // tolerance, and the reused factor serves every iteration.
  double forcing = 0.01;
  int max_iterations = 20;  // then the step falls back to the linearized step with correction
  // Definite mode (solver.definite): Newton's directions descend the step's potential Psi for
  // this many iterations; from then on, in a step whose matrix has shown itself indefinite (a
  // direction's CG met negative curvature), they head for G's root: GMRES on J itself,
  // preconditioned by the same factor, with a backtracking line search on |G|^2. A root where J
  // is indefinite is a saddle of Psi, which descent directions circle (scenes/grasp.json's
  // squeezed cube springing free: 15-20 iterations a step and 50 of 120 steps falling back, 3-5
  // and 4 with the switch; bench/RESULTS.md). max_iterations or more: descent only.
  int descent_iterations = 3;
};

struct IntegratorOptions {
  // The default is Newton on the nonlinear backward-Euler step: its answer does not depend on the
  // solver's definiteness fix, where the linearized step's moves trajectories by percents of the
  // body's size (docs/solvers.md, "The default integrator").
  IntegratorType type = IntegratorType::kImplicitEuler;
  double dt = 0.01;               // T [s]
  double alpha = 0.0;             // Rayleigh mass damping [1/s]
  double beta = 0.0;              // Rayleigh stiffness damping [s]
  bool correction = true;         // seed 000 algUNC
  double correction_speed = 0.1;  // V [m/s] of algUNC
  double max_speed = 50.0;        // a step producing a faster vertex is rolled back [m/s]
  int max_retries = 3;            // retries with correction on and 2, 4, 8 substeps
  // Inversion alleviation before each step's solve (stages/inversion_alleviation.h): at most this
  // many sweeps; 0: off.
  int alleviation_sweeps = 0;
  // The fixed-iteration solvers (vbd, projective, quasi-newton, xpbd): sweeps or iterations per
  // step (per substep),
  // and Chebyshev acceleration's spectral radius estimate rho in [0, 1) (0: off; vbd and
  // projective).
  int iterations = 10;
  double chebyshev = 0;
  // Every step is taken as this many steps of dt / substeps (XPBD's "small steps": many substeps
  // of one iteration; any integrator honours it, and a rollback's retries multiply it).
  int substeps = 1;
  SolverOptions solver;
  NewtonOptions newton;
};

// The scene's own settings with converged solves: a factorization every step and a relative
// residual of 1e-10 (linear solves, and Newton's for Newton integrators; vbd, converged, is
// implicit Euler). A run with these is the reference a real-time setting is judged against.
IntegratorOptions reference_options(IntegratorOptions options);

const char* integrator_type_name(IntegratorType type);
// Throws std::invalid_argument naming the accepted values.
IntegratorType parse_integrator_type(const std::string& name);
std::vector<std::string> integrator_type_names();
// Whether the integrator runs the contact stage (engine/sim/stages/contact_stage.h) after a free
// motion through the step matrix's factor: what self contact needs. And those integrators'
// names, for errors ("a, b, c or d").
bool integrator_runs_contact_stage(IntegratorType type);
std::string contact_stage_integrator_names();

}  // namespace softbody
