// Frictional contact in constraint space (seed 002 §4.5, Duriez et al. 2006): projected
// Gauss-Seidel on Signorini's law and Coulomb's friction cone, one 3x3 block per contact. Standard
// library only, so one implementation serves the engine's contact stage, the server's 1 kHz
// haptic re-solves and both clients (native and, through Emscripten, the browser).
//
// Each contact k has a frame [n, t1, t2] (n points from the obstacle into the body) and a
// multiplier lambda_k = (lambda_n, lambda_t1, lambda_t2) [N]: the force n lambda_n + t1 lambda_t1
// + t2 lambda_t2 on the body. The motion at the end of the step is delta = delta_free + W lambda
// [m]: delta_n the normal gap, (delta_t1, delta_t2) the tangential slip over the step, W the
// Delassus operator in the contacts' frames (symmetric positive definite, row-major 3m x 3m).
//   Signorini: 0 <= delta_n  perp  lambda_n >= 0
//   Coulomb:   |lambda_t| <= mu lambda_n; stick (|lambda_t| < mu lambda_n) => delta_t = 0;
//              slip => lambda_t = -mu lambda_n delta_t / |delta_t| (maximal dissipation).
#pragma once

#include <vector>

#include "codec/dense_lu.h"

namespace softbody::codec {

struct ContactProblem {
  int contacts = 0;
  std::vector<double> w;           // 3m x 3m, row-major [m/N]
  std::vector<double> delta_free;  // 3m: gap and slip without contact forces [m]
  std::vector<double> mu;          // m friction coefficients
};

struct PgsOptions {
  int max_iterations = 200;
  // Converged when the natural residual (below) is at most this [m].
  double tolerance = 1e-9;
};

struct PgsReport {
  int iterations = 0;
  double residual = 0;  // max over contacts of the natural residual [m]
  bool converged = false;
};

// Solves for lambda (3m; its content on entry is the warm start, resized to 3m and zeroed if its
// size differs). Each contact's local problem is solved exactly for the normal part given the
// tangential one and by a projected step for the tangential part, whose fixed point is exactly
// Coulomb's law above: lambda_t = proj_cone(lambda_t - delta_t / w_t), w_t the largest eigenvalue
// of the contact's tangential 2x2 block (a step 1/w_t never overshoots, so sweeps contract).
PgsReport solve_contact_pgs(const ContactProblem& problem, std::vector<double>& lambda,
                            const PgsOptions& options = {});

// The same laws solved first by an active-set Newton method, then (where that left them unmet)
// polished by the PGS above. Each
// Newton iteration classifies the contacts (separated, sticking, slipping along the last slip's
// direction), solves the linear equations that classification implies (a sticking contact's gap
// and slip vanish; a slipping one's gap vanishes and its friction is mu lambda_n against the slip)
// with a dense LU, and re-classifies; a few iterations settle a grasp of 100-150 contacts that PGS
// alone left millimetres from its answer after 200 sweeps (the body's surface compliance couples
// every contact: W is ill-conditioned). Stops early when the classification repeats.
struct ActiveSetOptions {
  int max_iterations = 25;
  // Stops after this many iterations in a row that did not improve the best iterate's natural
  // residual (the classification is cycling).
  int stall_iterations = 3;
  // Then, when the classification left the laws short of newton_target (it may cycle between
  // classifications of contacts at the cone's edge), at most this many generalized Newton
  // iterations on Alart & Curnier's equations from its best iterate (0: none).
  int alart_curnier_iterations = 20;
  // Newton goes on to this fraction of the tolerance (the laws count as met at the tolerance).
  double newton_target = 1e-3;
  // Then, when Newton from there left the laws unmet (W singular or nearly so: its Jacobian gave
  // no descent; or its iterations ran out), at most this many proximal point iterations, each
  // Newton on the laws with W + eps D about the last answer (D: W's diagonal), whose fixed point
  // meets W's laws (0: none). eps starts at proximal_weight and adapts (a tenth after a met
  // iteration, ten times after an unmet one).
  int proximal_iterations = 10;
  double proximal_weight = 1e-3;
  // The active set's and Newton's dense solves (nullptr: codec/dense_lu.h's).
  DenseSolve dense_solve = nullptr;
};
PgsReport solve_contact(const ContactProblem& problem, std::vector<double>& lambda,
                        const PgsOptions& pgs = {}, const ActiveSetOptions& active_set = {});

// The natural residual of lambda: for each contact the distance (scaled by the block's diagonal
// back to metres) between lambda_k and its projection after a step along -delta_k; zero exactly
// when Signorini and Coulomb hold. Max over contacts [m].
double contact_residual(const ContactProblem& problem, const std::vector<double>& lambda);

// delta = delta_free + W lambda.
std::vector<double> contact_motion(const ContactProblem& problem,
                                   const std::vector<double>& lambda);

}  // namespace softbody::codec
