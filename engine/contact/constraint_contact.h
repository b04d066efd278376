// Constraint contact, a stage of the step (issue 22, seed 002): after the integrator's free motion
// (every force but the constraint obstacles'), contacts are detected, their compliance is built
// from the step solver's factor and the Signorini-Coulomb problem is solved by projected
// Gauss-Seidel (codec/contact_pgs.h); one corrective motion then moves the state.
//
// Our step is in velocity form (stages/step_matrix.h: A v = b, the external forces in b over
// h + beta, p = p^ + h v), so a force J^T lambda moves the proximity points by
// h/(h + beta) J A^-1 J^T lambda and the velocities by A^-1 J^T lambda / (h + beta)
// (Delassus.TheStepMovesAConstraintByTheComplianceOfItsMatrix). W_J below is that position form.
//
// Two schemes, selectable (ContactScheme), both with m = newton_iterations re-linearizations of
// the constraint directions (seed 002 §5), solving each time for the total force (variant II of
// ../shared/notes: the cone then holds for the force actually applied, and a warm start from the
// last iteration's force, re-expressed in the new frames, costs nothing):
//   standard: each iteration builds W = H A^-1 H^T for H = C_i J by half-solves and moves the
//             state by a solve (seed 002's Algorithm 2);
//   fast:     W_J = J A^-1 J^T once per step; each iteration re-orients W = C_i W_J C_i^T and
//             moves the proximity points P = P_free + W_J C_i^T lambda, with no solve; one solve
//             at the end (seed 002's Algorithm 3).
// With A's factor fixed within the step and J constant (barycentric weights), the two compute the
// same answer; they differ in cost, which is the point of seed 002 (softbody-bench contact).
#pragma once

#include <functional>
#include <span>
#include <vector>

#include "codec/tool_contact.h"
#include "engine/contact/contact_detection.h"
#include "engine/sim/simulation.h"
#include "engine/solvers/linear_operator.h"

namespace softbody {

// One step's contact resolution, for statistics, haptics and tests.
struct ContactResult {
  std::vector<ContactPoint> points;  // as detected at the free motion
  std::vector<Vec3> forces;          // on the body at each point [N]
  // The normal each force was solved in (its last linearization's, at the point's position
  // there): the friction cone holds about it. It may differ from the detection's `normal` at the
  // free motion, which a body springing back through a small tool can turn inside out.
  std::vector<Vec3> normals;
  std::vector<Vec3> obstacle_forces;  // on each obstacle (minus the body's share) [N]
  // d(force on the obstacle)/d(obstacle position) with its active contacts held: -N W_NN^-1 N^T
  // over the obstacle's active contacts (normals N, W_NN their normal-normal compliance), the
  // stiffness a haptic tool feels within a step [N/m]; and how many contacts are active.
  std::vector<Mat3> obstacle_stiffness;
  std::vector<int> obstacle_contacts;
  // Each obstacle's contact problem (codec/tool_contact.h) for haptic re-solves between steps:
  // its contacts' compliance, free gaps (the other obstacles' forces held) and answer, around its
  // position at the step's end; empty for an obstacle without contacts or with more than
  // kMaxModelContacts (a floor, not a tool).
  static constexpr int kMaxModelContacts = 64;
  std::vector<codec::ToolContactModel> obstacle_models;
  double max_penetration = 0;  // deepest contact at the end of the step [m] (0: none)
  double pgs_residual = 0;     // natural residual of the last PGS [m]
  int pgs_iterations = 0;      // summed over Newton iterations
  int newton_iterations = 0;
  int active = 0;  // contacts carrying a force
  // The fresh compliance kept a factor confirmed for this configuration without evaluating the
  // step matrix at the free motion's end (FreeMotionMatrix::confirmed).
  bool matrix_confirmed = false;
  // Where the time went [ms] (seed 002's Table 1): detection; the factorization for a fresh
  // compliance; W_J (fast) once; the W re-orientations or rebuilds, the PGS runs and the
  // corrective motions (proximity-point updates and solves), summed over Newton iterations.
  double detect_ms = 0, factor_ms = 0, build_ms = 0, rebuild_ms = 0, pgs_ms = 0, correction_ms = 0;
};

// How a fresh compliance gets the step matrix at the free motion's end, which only the integrator
// can evaluate (every member optional; none: `a` is used as it is).
struct FreeMotionMatrix {
  // True when the factor in use was confirmed for this step's configuration: it is kept without
  // evaluating the matrix (engine/sim/stages/confirmed_factor.h).
  std::function<bool()> confirmed;
  // Brings `a` to the free motion's end (a stiffness evaluation).
  std::function<void()> evaluate;
  // Whether this step's matrix may be confirmed: it holds no terms the positions do not describe
  // (engine/sim/stages/confirmed_factor.h, step_matrix_has_other_terms).
  std::function<bool()> confirmable;
  // Called on a confirmable step after the evaluated matrix was compared (and refactored if
  // needed): the factor in use is then a kept factor (StepSolver::has_kept_factor) of a matrix
  // within the confirmation's share of the tolerance of it. Records that.
  std::function<void()> confirm;
};

class ConstraintContact {
 public:
  explicit ConstraintContact(const SimulationModel& model);

  // The step went from `p_start` (at t_start) to the free motion p = p_hat + h v; `a` is the
  // step's matrix and `solver` holds its factor. Moves p and v by the contact forces with
  // `obstacles` at t_next. `memory`: the last step's forces per contact, the warm start; replaced
  // by this step's. `matrix` brings `a`'s matrix to the free motion's end before a fresh
  // compliance is factored, unless the factor in use is confirmed for it: asked only when there are
  // contacts (an evaluation costs a stiffness evaluation). False when the corrected state is not
  // finite.
  bool resolve(std::span<const Obstacle> obstacles, double t_start, double t_next, double h,
               const Vec3Array& p_start, const ConstrainedBlockOperator& a, StepSolver& solver,
               Vec3Array& p, Vec3Array& v, std::vector<SimulationState::ContactMemory>& memory,
               ContactResult& result, const FreeMotionMatrix& matrix = {});

 private:
  // Whether every vertex of the contact is fixed (it cannot move: no constraint of the step).
  bool held(const ContactPoint& c) const;

  const SimulationModel& model_;
  ContactDetector detector_;
  double
      diagonal_;  // the body's rest bounding-box diagonal: tolerance and margin are relative to it
};

}  // namespace softbody
