// What a simulation is made of: an immutable model (mesh, material model, masses, damping,
// constraints, external forces, integrator settings) and the state that changes. Integrators
// (engine/sim/integrator.h) step a state of a model. A session owns a state; several sessions
// may share a model's mesh and force model. A snapshot of a simulation is its SimulationState.
#pragma once

#include <array>
#include <memory>

#include "codec/tool_contact.h"
#include "engine/contact/contact_options.h"
#include "engine/forces/force_model.h"
#include "engine/forces/viscoelastic.h"
#include "engine/sim/external_forces.h"
#include "engine/sim/integrator_options.h"
#include "engine/sim/surface_loads.h"
#include "engine/solvers/step_solver.h"

namespace softbody {

struct SimulationModel {
  std::shared_ptr<const MeshTopology> topology;
  std::shared_ptr<const ForceModel> forces;
  // Viscous stresses of the material (Prony series, bulk viscosity, rate damping); null for a
  // purely elastic body. Their memory is the state's material_memory.
  std::shared_ptr<const ViscousModel> viscous;
  // The body's material: its elastic moduli scale the constant matrix of the projective solvers
  // (projective dynamics, quasi-Newton); the force model holds its own copy.
  Material material;
  Vec3Array rest;
  std::vector<double> mass;         // lumped, per vertex [kg]
  std::vector<std::uint8_t> fixed;  // per vertex: held at zero velocity
  Vec3 gravity = Vec3(0, -9.81, 0);
  std::vector<Anchor> anchors;
  std::vector<Obstacle> obstacles;
  std::vector<SurfaceLoad> surface_loads;  // the scene's `loads`
  // The velocities a fresh or reset state starts with (scene `initial_velocity`); empty: at rest.
  Vec3Array initial_velocity;
  IntegratorOptions options;
  ContactOptions contact;  // for obstacles whose contact model is constraint
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

// Everything about a simulation that changes from step to step. An integrator keeps nothing of
// its own between steps that is not a cache of something here (see docs/architecture.md: model,
// state, scratch), so `state = saved` is a complete rollback and a copied state a complete
// snapshot.
struct SimulationState {
  Vec3Array p;
  Vec3Array v;
  double t = 0;
  long step = 0;
  // The linear solver's memory: the matrix of the factor it reuses and its refresh history. Only
  // the path of the solves depends on it, but a continuation is bit-identical only with it.
  StepSolverState solver;
  // Per-element material memory: the Prony terms' memory tensors (ViscousModel, 6 values per term
  // per element); empty for an elastic body or one that never deformed.
  std::vector<double> material_memory;
  // Constraint contact's last forces, per (obstacle, surface feature): the warm start of the next
  // step's projected Gauss-Seidel (a held grasp keeps its contacts, and its forces change little).
  // Only the path of PGS depends on it (the answer to its tolerance does not).
  struct ContactMemory {
    int obstacle = 0;                                  // -1: self contact
    std::array<Index, 4> vertices = {-1, -1, -1, -1};  // as the contact's (ContactPoint)
    Vec3 force = Vec3::Zero();                         // on the body [N]
    bool operator==(const ContactMemory&) const = default;
  };
  std::vector<ContactMemory> contact_memory;
  // The last step's free motion (the velocities Newton solved for, before constraint contact moved
  // them), kept when contact forces moved the state and the same features carried force as in the
  // step before: the next Newton solve's predictor. A held body springs back the same way in every
  // step's free motion, far from its held state's velocity (7.7 Newton iterations a step from that
  // on bench/scenes/knight-grasp-hold.json, 2.9 from the last free motion). Valid only for the
  // state it was recorded with (t == its t) and the same dt; only the path of Newton depends on
  // it (the answer to its tolerance does not).
  struct FreeMotion {
    Vec3Array v;
    double dt = 0;
    double t = -1;
    bool operator==(const FreeMotion&) const = default;
  } free_motion;
  // Where constraint contact's fresh compliance (ContactOptions::fresh_compliance) last evaluated
  // the step matrix at the free motion's end and found the factor in use made from a matrix within
  // half of contact.fresh_tolerance of it (a later evaluation replaces it): that step's start and
  // free-motion positions, its h, and the solver's factorization count then (which factor it speaks
  // for). A later step whose start and free motion are that close to these
  // (engine/sim/stages/confirmed_factor.h), with the same h and factor, keeps the factor without
  // evaluating its matrix (a held grasp: the evaluation was most of its contact stage). Null: none.
  // Only when factors are refreshed depends on it.
  struct ConfirmedFactor {
    Vec3Array start, free;
    double h = 0;
    long factorizations = -1;
  };
  std::shared_ptr<const ConfirmedFactor> confirmed_factor;
  // The multistep integrators' history (BDF): positions and velocities of the states before this
  // one, newest first, all dt apart. Valid only for the state it was recorded with (t == its t)
  // and the same dt: a new dt, a retry with substeps or another integrator's step restart BDF at
  // order 1.
  struct History {
    std::vector<Vec3Array> p, v;  // p[0] = p_{n-1}, p[1] = p_{n-2}
    double dt = 0;
    double t = -1;  // the time of the state it belongs to
    // BDF(3)'s watch for modes it amplifies (engine/sim/stages/bdf_stability.h): per window
    // length (a short one for fast growth, a long one for slow), the sums of the squared third
    // differences over the current and the last window, the steps in the current one, how many
    // windows in a row grew and by how much together; the steps left at order 2 and how often the
    // order has been limited since the history began.
    struct GrowthWatch {
      double window_sum = 0, last_window_sum = 0, growth = 1;
      int window_steps = 0, growing_windows = 0;
      bool operator==(const GrowthWatch&) const = default;
    };
    struct OrderLimit {
      GrowthWatch fast, slow;
      int reduced_steps = 0, reductions = 0;
      bool operator==(const OrderLimit&) const = default;
    } order_limit;
    bool operator==(const History&) const = default;
  } history;
};

// The rest shape with the model's initial velocities (at rest without them).
SimulationState rest_state(const SimulationModel& model);

// Mean distance of the vertices from their rest positions over the rest bounding-box diagonal:
// how far a simulated body is from its rest shape (seed 000's "returns to its shape").
double shape_error(const Vec3Array& positions, const Vec3Array& rest);
// Mean distance between corresponding vertices of two configurations over `diagonal`: how far a
// trajectory is from a reference run of the same scene (the fidelity measure).
double mean_distance(const Vec3Array& a, const Vec3Array& b, double diagonal);

// Lumped mass: each tetrahedron gives a quarter of rho * V to each of its vertices.
std::vector<double> lumped_masses(const TetMesh& mesh, double density);

// The body's linear momentum sum m_i v_i and its angular momentum about its centre of mass,
// sum m_i (p_i - c) x v_i (what inversion alleviation must keep, and a spinning body keeps
// without external torque), with the mass and the centre they were taken with.
struct Momentum {
  Vec3 linear = Vec3::Zero(), angular = Vec3::Zero();
  double mass = 0;
  Vec3 centre = Vec3::Zero();
};
Momentum momentum(const std::vector<double>& mass, const Vec3Array& p, const Vec3Array& v);
// sum m_i |v_i|^2 / 2.
double kinetic_energy(const std::vector<double>& mass, const Vec3Array& v);

struct StepStats {
  long step = 0;
  double t = 0;
  int iterations = 0;  // solver iterations, summed over substeps
  int matvecs = 0;
  // Largest relative residual over the solves of the accepted attempt (for Newton integrators:
  // Newton's |G| / |b|), the residual they were asked to reach, and whether all reached it.
  double residual = 0;
  double tolerance = 0;
  bool converged = true;
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
  int contacts = 0;  // penalty contacts (vertex-obstacle pairs)
  // Constraint contact (engine/contact/): contacts detected, those carrying a force, the deepest
  // penetration left [m], the last PGS's natural residual [m], its sweeps and the constraint
  // re-linearizations, summed over substeps; the force on each constraint obstacle [N] (the
  // step's obstacles in order: the model's, then the inputs').
  int constraint_contacts = 0;
  int active_contacts = 0;
  double max_penetration = 0;
  double pgs_residual = 0;
  int pgs_iterations = 0;
  int contact_newton_iterations = 0;
  double contact_ms = 0;
  // Where contact_ms went (ContactResult's): detection, the fresh compliance's factorization,
  // W (W_J once and its re-orientations or rebuilds), the Signorini-Coulomb solves, the
  // corrective motions.
  struct ContactTimes {
    double detect_ms = 0, factor_ms = 0, compliance_ms = 0, solve_ms = 0, correction_ms = 0;
  } contact_times;
  std::vector<Vec3> obstacle_forces;
  std::vector<Mat3> obstacle_stiffness;  // ContactResult's, for haptic coupling models [N/m]
  std::vector<int> obstacle_contacts;
  std::vector<codec::ToolContactModel> obstacle_models;  // tools' contact problems (haptics)
  // Newton integrators: iterations (summed over substeps), Jacobian re-evaluations after the
  // first, backtracks of the line search, and whether the step fell back to the linearized one.
  int newton_iterations = 0;
  int jacobian_updates = 0;
  int line_search_backtracks = 0;
  bool newton_fallback = false;
  // Newton stopped where its direction no longer moved any position beyond round-off: converged,
  // with the residual at its floor, above a tolerance asked below it (a reference's 1e-10 on stiff
  // anchors).
  bool newton_round_off = false;
  int bdf_order = 0;  // the BDF order the step ran at (0: not a BDF integrator)
  // Tetrahedra with signed volume <= 0 after the step, every integrator; with inversion
  // alleviation on, those inverted at the step's first prediction (not at its start) and the
  // sweeps that changed velocities, over the accepted attempt's substeps.
  int inverted_elements = 0;
  int inverted_before_alleviation = 0;
  int alleviation_sweeps = 0;
  // projective, quasi-newton: mechanical energy the step's iterations created beyond the work done
  // on the body, taken back out of its deformational velocities [J] (stages/energy_guard.h).
  double energy_removed = 0;
  int rolled_back = 0;  // attempts discarded (non-finite or over max_speed)
  int substeps = 1;     // of the accepted attempt
  bool failed = false;  // every attempt was rolled back: positions kept, velocities zeroed
  double step_ms = 0, forces_ms = 0, assembly_ms = 0, solve_ms = 0, correction_ms = 0;
};

}  // namespace softbody
