// The Signorini-Coulomb problem by an active-set method, generalized Newton on Alart & Curnier's
// equations and proximal point iterations, polished by projected Gauss-Seidel where they left the
// laws unmet (declared in codec/contact_pgs.h).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <utility>

#include "codec/contact_blocks.h"
#include "codec/contact_pgs.h"
#include "codec/dense_lu.h"

namespace softbody::codec {
namespace {

using contact_blocks::entry;
using contact_blocks::project_onto_cones;
using contact_blocks::tangential_stiffness;
using std::size_t;

enum class ContactState { kSeparated, kStick, kSlip };

// Alart & Curnier's function (Comput. Methods Appl. Mech. Eng. 1991), the laws as equations
// Phi(lambda) = 0, with each contact's normal and tangential rows scaled by the inverse of its
// block's diagonal (as the PGS steps are): sigma_n = lambda_n - rho_n u_n, tau = lambda_t - rho_t
// u_t (u = W lambda + delta_free), Phi_n = lambda_n - max(0, sigma_n), Phi_t = lambda_t -
// proj_disk(mu max(0, sigma_n)) tau. When `jacobian` is given it gets a generalized Jacobian
// (3m x 3m, row-major) of Phi.
void alart_curnier(const ContactProblem& p, const std::vector<double>& lambda,
                   std::vector<double>& phi, std::vector<double>* jacobian) {
  const size_t m = static_cast<size_t>(p.contacts), n = 3 * m;
  const std::vector<double> u = contact_motion(p, lambda);
  phi.assign(n, 0.0);
  if (jacobian) jacobian->assign(n * n, 0.0);
  for (size_t k = 0; k < m; ++k) {
    const size_t in = 3 * k, i1 = in + 1, i2 = in + 2;
    const double rho_n = 1 / entry(p, in, in), rho_t = 1 / tangential_stiffness(p, k);
    const double sigma = lambda[in] - rho_n * u[in];
    const double tx = lambda[i1] - rho_t * u[i1], ty = lambda[i2] - rho_t * u[i2];
    const double r = p.mu[k] * std::max(0.0, sigma), t = std::hypot(tx, ty);
    const bool pressed = sigma > 0, sticking = t <= r;
    phi[in] = lambda[in] - std::max(0.0, sigma);
    const double scale = sticking ? 1.0 : (t > 0 ? r / t : 0.0);
    phi[i1] = lambda[i1] - scale * tx;
    phi[i2] = lambda[i2] - scale * ty;
    if (!jacobian) continue;
    auto row = [&](size_t i) { return &(*jacobian)[i * n]; };
    const double* w_n = &p.w[in * n];
    const double* w_1 = &p.w[i1 * n];
    const double* w_2 = &p.w[i2 * n];
    // Normal: rho_n W_n when pressed, else the identity row.
    if (pressed)
      for (size_t c = 0; c < n; ++c) row(in)[c] = rho_n * w_n[c];
    else
      row(in)[in] = 1;
    if (sticking) {  // dPhi_t = rho_t W_t
      for (size_t c = 0; c < n; ++c) {
        row(i1)[c] = rho_t * w_1[c];
        row(i2)[c] = rho_t * w_2[c];
      }
      continue;
    }
    // Slipping: dPhi_t = E_t - (r/t)(I - h h^T) dtau - h dr, dtau = E_t - rho_t W_t,
    // dr = mu (e_n - rho_n W_n) when pressed.
    const double hx = t > 0 ? tx / t : 0, hy = t > 0 ? ty / t : 0;
    const double a11 = scale * (1 - hx * hx), a12 = -scale * hx * hy, a22 = scale * (1 - hy * hy);
    for (size_t c = 0; c < n; ++c) {
      const double d1 = (c == i1 ? 1.0 : 0.0) - rho_t * w_1[c];
      const double d2 = (c == i2 ? 1.0 : 0.0) - rho_t * w_2[c];
      const double dr = pressed ? p.mu[k] * ((c == in ? 1.0 : 0.0) - rho_n * w_n[c]) : 0.0;
      row(i1)[c] = (c == i1 ? 1.0 : 0.0) - (a11 * d1 + a12 * d2) - hx * dr;
      row(i2)[c] = (c == i2 ? 1.0 : 0.0) - (a12 * d1 + a22 * d2) - hy * dr;
    }
  }
}

// `lambda` projected onto the cones replaces `best` when its natural residual is smaller.
void keep_if_nearer(const ContactProblem& p, const std::vector<double>& lambda,
                    std::vector<double>& best, double& best_residual) {
  std::vector<double> projected = lambda;
  project_onto_cones(p, projected);
  const double residual = contact_residual(p, projected);
  if (residual < best_residual) {
    best_residual = residual;
    best = std::move(projected);
  }
}

// The dense solve the options name, or the codec's own.
DenseSolve dense_solve_of(const ActiveSetOptions& o) {
  return o.dense_solve ? o.dense_solve : solve_dense;
}

double squared_norm(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x * x;
  return sum;
}

// Generalized Newton on Alart & Curnier's function with a backtracking line search on |Phi|^2,
// from `lambda`, at most o.alart_curnier_iterations iterations; keeps the iterate (projected onto
// the cones) with the least natural residual in `best` / `best_residual`. Quadratic near the answer
// where the active-set method cycles between classifications of contacts at the cone's edge.
void alart_curnier_newton(const ContactProblem& p, std::vector<double> lambda,
                          const ActiveSetOptions& o, double tolerance, std::vector<double>& best,
                          double& best_residual, int& iterations) {
  const size_t n = 3 * static_cast<size_t>(p.contacts);
  std::vector<double> phi, jacobian, trial_phi;
  alart_curnier(p, lambda, phi, &jacobian);
  double merit = squared_norm(phi);
  const DenseSolve solve = dense_solve_of(o);
  for (int it = 0; it < o.alart_curnier_iterations && best_residual > tolerance; ++it) {
    ++iterations;
    std::vector<double> step = phi;
    for (double& x : step) x = -x;
    // The rows are scaled to a unit diagonal: the regularization is 1e-8 of it.
    if (!solve_dense_or_regularized(jacobian, step, n, 1e-8, solve)) return;
    double alpha = 1;
    std::vector<double> trial(n);
    bool accepted = false;
    for (int halvings = 0; halvings < 12; ++halvings, alpha *= 0.5) {
      for (size_t i = 0; i < n; ++i) trial[i] = lambda[i] + alpha * step[i];
      alart_curnier(p, trial, trial_phi, nullptr);
      if (squared_norm(trial_phi) <= (1 - 1e-4 * alpha) * merit) {
        accepted = true;
        break;
      }
    }
    if (!accepted) return;  // no descent: the other stages take over
    lambda = trial;
    alart_curnier(p, lambda, phi, &jacobian);
    merit = squared_norm(phi);
    keep_if_nearer(p, lambda, best, best_residual);
  }
}

// Makes `regularized` (a copy of p, or its last regularization) the problem regularized about
// `centre` for a proximal point iteration: W + eps D and free motion delta_free - eps D centre
// (D: W's diagonal), so its motion is the original one plus eps D (lambda - centre), which
// vanishes where lambda = centre. Only the diagonal and the free motion change.
void regularize_about(const ContactProblem& p, double eps, const std::vector<double>& centre,
                      ContactProblem& regularized) {
  const size_t n = 3 * static_cast<size_t>(p.contacts);
  for (size_t i = 0; i < n; ++i) {
    const double d = eps * p.w[i * n + i];
    regularized.w[i * n + i] = p.w[i * n + i] + d;
    regularized.delta_free[i] = p.delta_free[i] - d * centre[i];
  }
}

// Proximal point iterations (Rockafellar 1976; for frictional contact, Acary et al. 2018) from
// `centre`: each solves the laws of the problem regularized about the centre (above) by Newton on
// Alart & Curnier's equations, and its answer becomes the next centre. The regularized problem
// has one answer even where W is singular (a vertex touching two obstacles: a jaw's friction
// along the floor's normal is the floor's force over again) and its Newton converges where
// Newton on W's own equations found no descent; a fixed point meets W's laws exactly (the added
// terms vanish), and each iteration shrinks the distance to it by eps / (eps + sigma) along each
// eigenvalue sigma of W relative to its diagonal. So eps adapts: a tenth after an iteration whose
// Newton met the regularized laws (the next centre is nearer: a weaker pull suffices, and the
// iterations speed up), ten times after one whose Newton did not (a stronger pull makes the laws
// easier). Keeps the iterate with the least natural residual of `p` in `best` /
// `best_residual`.
void proximal_newton(const ContactProblem& p, std::vector<double> centre, const ActiveSetOptions& o,
                     double tolerance, std::vector<double>& best, double& best_residual,
                     int& iterations) {
  constexpr double kLargestWeight = 1;  // a pull as stiff as W's own diagonal
  ContactProblem regularized = p;       // W copied once: each iteration rewrites its diagonal
  double eps = o.proximal_weight;
  // The laws count as met at the tolerance here, not at Newton's target below it: each outer
  // iteration costs a Newton run (aiming lower measured: the clamp's contact stage 30 % longer,
  // the grasp's 8 %).
  for (int outer = 0; outer < o.proximal_iterations && best_residual > tolerance; ++outer) {
    regularize_about(p, eps, centre, regularized);
    std::vector<double> answer = centre;
    double answer_residual = contact_residual(regularized, centre);
    // Half the tolerance: the rest is left for the centre's pull (eps D (lambda - centre)).
    const double inner_tolerance = 0.5 * tolerance;
    alart_curnier_newton(regularized, centre, o, inner_tolerance, answer, answer_residual,
                         iterations);
    const double residual = contact_residual(p, answer);
    if (residual < best_residual) {
      best_residual = residual;
      best = answer;
    }
    if (answer_residual <= inner_tolerance) {
      eps *= 0.1;
    } else if (eps < kLargestWeight) {
      eps = std::min(kLargestWeight, 10 * eps);
    } else {
      return;  // even the stiffest pull left Newton without descent
    }
    centre = std::move(answer);
  }
}

}  // namespace

PgsReport solve_contact(const ContactProblem& p, std::vector<double>& lambda, const PgsOptions& pgs,
                        const ActiveSetOptions& active_set) {
  const std::size_t m = static_cast<std::size_t>(p.contacts), n3 = 3 * m;
  if (lambda.size() != n3) lambda.assign(n3, 0.0);
  const DenseSolve solve = dense_solve_of(active_set);
  // Newton's target: quadratic convergence makes the digits below the tolerance cheap, and an
  // answer just inside it lets a resting body creep by it every step (and refactor every step:
  // scenes/incline.json's block factored 100 times in 100 steps with Newton stopping at the
  // tolerance, 5 with it going on to a thousandth).
  const double aim = active_set.newton_target * pgs.tolerance;
  std::vector<ContactState> state(m, ContactState::kSeparated);
  std::vector<double> slip_x(m, 0), slip_y(m, 0);  // friction direction of slipping contacts
  // The first classification from the warm start (or the free gaps).
  std::vector<double> delta = contact_motion(p, lambda);
  for (std::size_t k = 0; k < m; ++k) {
    const bool pressed = lambda[3 * k] > 0 || delta[3 * k] < 0;
    state[k] = pressed ? ContactState::kStick : ContactState::kSeparated;
  }
  int iterations = 0;
  // The nearest iterate to the laws of the whole solve, and of the active set alone (Newton
  // starts from the latter: the iterate it converges from is not always the nearest one).
  std::vector<double> best, classified_best;
  double best_residual = std::numeric_limits<double>::infinity();
  double classified_residual = std::numeric_limits<double>::infinity();
  int classifications = 0;       // the active set's iterations so far
  bool stopped_stalled = false;  // the last run stopped at a stall (it may go on)
  // Runs the active set's iterations (all that remain of max_iterations, or until `stall_limit`
  // in a row did not improve the best iterate), from the current classification.
  const auto run_active_set = [&](int stall_limit) {
    int stalled = 0;  // iterations since the best iterate last improved
    stopped_stalled = false;
    for (; classifications < active_set.max_iterations; ++classifications, ++iterations) {
      // Unknowns: 3 per sticking contact, lambda_n per slipping one; equations: their gap rows.
      std::vector<std::size_t> first(m, 0);
      std::size_t unknowns = 0;
      for (std::size_t k = 0; k < m; ++k) {
        first[k] = unknowns;
        unknowns += state[k] == ContactState::kStick ? 3 : state[k] == ContactState::kSlip ? 1 : 0;
      }
      std::vector<double> next(n3, 0.0);
      if (unknowns > 0) {
        // Column j of the reduced matrix: the motion of the equations' rows per unit of unknown j.
        std::vector<double> a(unknowns * unknowns, 0.0), b(unknowns, 0.0);
        auto row_of = [&](std::size_t k, std::size_t r) { return 3 * k + r; };
        std::vector<std::size_t> rows;  // full-problem row of each equation
        for (std::size_t k = 0; k < m; ++k) {
          if (state[k] == ContactState::kStick)
            for (std::size_t r = 0; r < 3; ++r) rows.push_back(row_of(k, r));
          else if (state[k] == ContactState::kSlip)
            rows.push_back(row_of(k, 0));
        }
        for (std::size_t e = 0; e < unknowns; ++e) {
          const double* w = &p.w[rows[e] * n3];
          b[e] = -p.delta_free[rows[e]];
          for (std::size_t k = 0; k < m; ++k) {
            const std::size_t j = first[k];
            if (state[k] == ContactState::kStick) {
              for (std::size_t r = 0; r < 3; ++r) a[e * unknowns + j + r] = w[3 * k + r];
            } else if (state[k] == ContactState::kSlip) {
              const double mu = p.mu[k];
              a[e * unknowns + j] =
                  w[3 * k] + mu * (slip_x[k] * w[3 * k + 1] + slip_y[k] * w[3 * k + 2]);
            }
          }
        }
        double largest = 0;
        for (std::size_t e = 0; e < unknowns; ++e) largest = std::max(largest, a[e * unknowns + e]);
        if (!solve_dense_or_regularized(a, b, unknowns, 1e-8 * largest, solve)) break;
        for (std::size_t k = 0; k < m; ++k) {
          const std::size_t j = first[k];
          if (state[k] == ContactState::kStick) {
            for (std::size_t r = 0; r < 3; ++r) next[3 * k + r] = b[j + r];
          } else if (state[k] == ContactState::kSlip) {
            next[3 * k] = b[j];
            next[3 * k + 1] = p.mu[k] * b[j] * slip_x[k];
            next[3 * k + 2] = p.mu[k] * b[j] * slip_y[k];
          }
        }
      }
      lambda = next;
      delta = contact_motion(p, lambda);
      // The classification may cycle (contacts at the cone's edge flipping as their neighbours
      // change): the iterate nearest to the laws (natural residual, after projecting onto the cone)
      // is the one Newton starts from.
      const double best_before = classified_residual;
      keep_if_nearer(p, lambda, classified_best, classified_residual);
      stalled = classified_residual < best_before ? 0 : stalled + 1;
      if (stalled >= stall_limit) {
        ++classifications;
        ++iterations;
        stopped_stalled = true;
        break;
      }
      // Re-classify.
      bool changed = false;
      for (std::size_t k = 0; k < m; ++k) {
        ContactState s = state[k];
        const double ln = lambda[3 * k], lt = std::hypot(lambda[3 * k + 1], lambda[3 * k + 2]);
        const double dt = std::hypot(delta[3 * k + 1], delta[3 * k + 2]);
        if (s != ContactState::kSeparated && ln < 0) {
          s = ContactState::kSeparated;
        } else if (s == ContactState::kSeparated && delta[3 * k] < 0) {
          s = ContactState::kStick;
        } else if (s == ContactState::kStick && lt > p.mu[k] * ln) {
          s = ContactState::kSlip;
          slip_x[k] = lambda[3 * k + 1] / lt;
          slip_y[k] = lambda[3 * k + 2] / lt;
        } else if (s == ContactState::kSlip && dt > 0) {
          // Friction opposes the slip; a slip that turned against the assumed friction sticks.
          const double along = -(delta[3 * k + 1] * slip_x[k] + delta[3 * k + 2] * slip_y[k]);
          if (along < 0) {
            s = ContactState::kStick;
          } else {
            const double x = -delta[3 * k + 1] / dt, y = -delta[3 * k + 2] / dt;
            if (std::abs(x - slip_x[k]) + std::abs(y - slip_y[k]) > 1e-9) changed = true;
            slip_x[k] = x;
            slip_y[k] = y;
          }
        }
        if (s != state[k]) changed = true;
        state[k] = s;
      }
      if (!changed) {
        ++classifications;
        ++iterations;
        break;
      }
    }
  };
  // Where the classification left the laws short of Newton's target, Newton on Alart & Curnier's
  // equations from its best iterate.
  const auto newton_from_best = [&] {
    if (classified_best.empty()) return;
    std::vector<double> newton_best = classified_best;
    double newton_residual = classified_residual;
    if (newton_residual > aim && active_set.alart_curnier_iterations > 0)
      alart_curnier_newton(p, classified_best, active_set, aim, newton_best, newton_residual,
                           iterations);
    if (newton_residual < best_residual) {
      best_residual = newton_residual;
      best = std::move(newton_best);
    }
  };
  // A classification that cycles (contacts at the cone's edge flipping) rarely comes back to a
  // better iterate: on a 147-contact grasp the best came at the third iteration and the next 22
  // only cycled, a dense solve each, before Newton from the best converged in 4. So the active
  // set stops at a stall and Newton takes over; where that leaves the laws unmet (a nearly
  // singular W whose best early iterate is outside Newton's reach), the active set goes on from
  // where it stopped, as without the shortcut, and Newton tries again.
  run_active_set(active_set.stall_iterations);
  newton_from_best();
  if (best_residual > pgs.tolerance && active_set.proximal_weight > 0 &&
      active_set.alart_curnier_iterations > 0 && !best.empty())
    proximal_newton(p, best, active_set, pgs.tolerance, best, best_residual, iterations);
  if (stopped_stalled && best_residual > pgs.tolerance) {
    run_active_set(std::numeric_limits<int>::max());
    newton_from_best();
  }
  if (!best.empty()) lambda = best;
  if (best_residual <= pgs.tolerance) {
    // Met (and on the cones: every kept iterate is projected). No polish: from an iterate at the
    // tolerance, sweeps of an ill-conditioned W's Gauss-Seidel may wander 200 sweeps and end
    // farther from the laws than they began (seen on scenes/clamp.json).
    PgsReport report;
    report.iterations = iterations;
    report.residual = best_residual;
    report.converged = true;
    return report;
  }
  PgsReport report = solve_contact_pgs(p, lambda, pgs);
  // Still unmet (the classification cycles between contacts at the cone's edge; PGS crawls on an
  // ill-conditioned W): Newton again from the polished iterate, often near enough for its
  // quadratic convergence where the classification's was not, then the polish again.
  if (!report.converged && active_set.alart_curnier_iterations > 0) {
    std::vector<double> newton_best = lambda;
    double newton_residual = report.residual;
    int newton_iterations = 0;
    alart_curnier_newton(p, lambda, active_set, pgs.tolerance, newton_best, newton_residual,
                         newton_iterations);
    iterations += newton_iterations;
    if (newton_residual < report.residual) {
      lambda = newton_best;
      const int polished = report.iterations;
      report = solve_contact_pgs(p, lambda, pgs);
      report.iterations += polished;
    }
  }
  report.iterations += iterations;
  return report;
}

}  // namespace softbody::codec
