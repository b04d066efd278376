// What a simulation is made of: an immutable model (mesh, material model, masses, damping,
// constraints, external forces, integrator settings) and the state that changes (seed 000 algU /
// algUNC stepping). A session owns a state; several sessions may share a model's mesh and force
// model. A snapshot of a simulation is its SimulationState.
#pragma once

#include <memory>

#include "engine/forces/force_model.h"
#include "engine/sim/external_forces.h"
#include "engine/solvers/step_solver.h"

namespace softbody {

// The time steps a scene or a live session may use [s], one range everywhere (scene files, --set,
// UpdateSettings): from 0.1 ms (haptic-rate stepping) to 100 ms (below 10 steps per second an
// interactive simulation no longer shows motion, and contact resolves poorly).
constexpr double kMinTimeStep = 1e-4, kMaxTimeStep = 0.1;

struct IntegratorOptions {
  double dt = 0.01;               // T [s]
  double alpha = 0.0;             // Rayleigh mass damping [1/s]
  double beta = 0.0;              // Rayleigh stiffness damping [s]
  bool correction = true;         // seed 000 algUNC
  double correction_speed = 0.1;  // V [m/s] of algUNC
  double max_speed = 50.0;        // a step producing a faster vertex is rolled back [m/s]
  int max_retries = 3;            // retries with correction on and 2, 4, 8 substeps
  SolverOptions solver;
};

struct SimulationModel {
  std::shared_ptr<const MeshTopology> topology;
  std::shared_ptr<const ForceModel> forces;
  Vec3Array rest;
  std::vector<double> mass;         // lumped, per vertex [kg]
  std::vector<std::uint8_t> fixed;  // per vertex: held at zero velocity
  Vec3 gravity = Vec3(0, -9.81, 0);
  std::vector<Anchor> anchors;
  std::vector<Obstacle> obstacles;
  IntegratorOptions options;
};

// What changes from step to step besides the state: tools driven by clients, added to the model's
// own anchors and obstacles for one step (a grabbing tool is an anchor, a poking tool an obstacle).
struct StepInputs {
  std::vector<Anchor> anchors;
  std::vector<Obstacle> obstacles;
  // > 0: the relative residual this step's solves must reach, when looser than the scene's (a
  // server keeping real time trades accuracy, never a fixed iteration count).
  double tolerance = 0;
};

struct SimulationState {
  Vec3Array p;
  Vec3Array v;
  double t = 0;
  long step = 0;
};

SimulationState rest_state(const SimulationModel& model);

// Mean distance of the vertices from their rest positions over the rest bounding-box diagonal:
// how far a simulated body is from its rest shape (seed 000's "returns to its shape").
double shape_error(const Vec3Array& positions, const Vec3Array& rest);
// Mean distance between corresponding vertices of two configurations over `diagonal`: how far a
// trajectory is from a reference run of the same scene (the fidelity measure).
double mean_distance(const Vec3Array& a, const Vec3Array& b, double diagonal);

// The scene's own settings with converged solves: a factorization every step and a relative
// residual of 1e-10. A run with these is the reference a real-time setting is judged against.
IntegratorOptions reference_options(IntegratorOptions options);

// Lumped mass: each tetrahedron gives a quarter of rho * V to each of its vertices.
std::vector<double> lumped_masses(const TetMesh& mesh, double density);

struct StepStats {
  long step = 0;
  double t = 0;
  int iterations = 0;  // solver iterations, summed over substeps
  int matvecs = 0;
  double residual = 0;    // largest relative residual over the solves of the accepted attempt
  double tolerance = 0;   // the residual the solves were asked to reach
  bool converged = true;  // every solve of the accepted attempt reached the tolerance
  StopReason stop_reason = StopReason::kMaxIterations;
  const char* solver_method = "";  // e.g. "cholesky-cg", "ldlt-gmres", "qmr"
  // Factorizations made during the step (0 while a reused factor served), their time, and the
  // factor in use: kind, nonzeros of L and fill (nnz(L) / nnz(A), upper triangles).
  int factorizations = 0;
  double factor_ms = 0;
  FactorKind factor_kind = FactorKind::kNone;
  long factor_nonzeros = 0;
  double factor_fill = 0;
  // Largest sigma added to an indefinite step matrix (integrator "definiteness": "shift").
  double definiteness_shift = 0;
  double max_speed = 0;   // max |v| over vertices after the step [m/s]
  double min_lambda = 1;  // smallest algUNC scaling (1: no correction applied)
  int corrected_vertices = 0;
  int contacts = 0;
  int rolled_back = 0;  // attempts discarded (non-finite or over max_speed)
  int substeps = 1;     // of the accepted attempt
  bool failed = false;  // every attempt was rolled back: positions kept, velocities zeroed
  double step_ms = 0, forces_ms = 0, assembly_ms = 0, solve_ms = 0, correction_ms = 0;
};

// Steps a model; owns the scratch memory (force workspace, system matrix, vectors).
class Integrator {
 public:
  explicit Integrator(std::shared_ptr<const SimulationModel> model);
  const SimulationModel& model() const { return *model_; }
  // Advances `state` by one dt (rolled back and retried on failure, see IntegratorOptions).
  StepStats step(SimulationState& state, const StepInputs& inputs = {});
  // The system A v = b of the last solve (for benchmarks and solver studies).
  const EdgeBlockMatrix& system_matrix() const { return system_; }
  const Eigen::VectorXd& system_rhs() const { return rhs_; }
  const StepSolver& linear_solver() const { return linear_solver_; }
  // What a snapshot carries besides the state so that its continuation is bit-identical.
  StepSolverState solver_state() const { return linear_solver_.save_state(); }
  void restore_solver_state(StepSolverState s) { linear_solver_.restore_state(std::move(s)); }

 private:
  bool attempt(SimulationState& state, double dt, bool correction, StepStats& stats);

  // The model's anchors and obstacles plus this step's inputs.
  std::vector<Anchor> anchors_;
  std::vector<Obstacle> obstacles_;
  SolverOptions solver_;
  std::shared_ptr<const SimulationModel> model_;
  std::unique_ptr<ForceWorkspace> force_workspace_;
  ForceOutput forces_, forces_next_;
  ExternalForceOutput external_;
  EdgeBlockMatrix system_;
  Eigen::VectorXd rhs_, velocity_;
  StepSolver linear_solver_;  // keeps its factorization across steps
};

}  // namespace softbody
