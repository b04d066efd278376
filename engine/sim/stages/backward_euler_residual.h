// The nonlinear backward-Euler equations in velocity form, the problem Newton-type integrators
// solve each step. With p(v) = p_k + T v, Rayleigh damping alpha M + beta K_k (the stiffness at
// the step's start, as the linearized step uses it) and the external force h(p) + B_H (v - phi)
// (seed 000 eq. 33: the position part plus the velocity-proportional part, whose B_H and phi the
// caller may lag at p_k):
//   G(v) = [(1/T + alpha) M v - M v_k / T + beta K_k v + f(p(v)) - h(p) - B_H (v - phi)] / (T +
//   beta)
// zero at fixed vertices. G(0) = -b of the linearized step and dG/dv at p_k is its matrix A, so
// the first simplified-Newton iteration from v = 0 is exactly seed 000's algU step.
#pragma once

#include "engine/sim/simulation.h"

namespace softbody {

struct StepStart {
  const Vec3Array& p;        // p_k
  const Vec3Array& v;        // v_k
  const EdgeBlockMatrix& k;  // K(p_k), for the beta damping term
};

// Psi(v), whose gradient is G when every force has a potential (external.conservative):
//   Psi = [ (1/T + alpha) v.Mv / 2 - v.M v_k / T + beta v.K_k v / 2 + (U(p(v)) + V(p(v))) / T
//           - (v - phi).B_H (v - phi) / 2 ] / (T + beta)
// with U = forces.energy and V = external.potential (B_H and K_k are symmetric). Fixed vertices
// are left out. Minimizing Psi is the step's incremental potential problem: Newton's line search
// measures progress with it, so any definite stand-in for J gives a descent direction.
struct StepPotential {
  double value = 0;      // Psi
  double magnitude = 0;  // the sum of its terms' absolute values: Psi's round-off is ~1e-16 of it
};

// G(v) into `g` (3 per vertex) from the forces at p(v): `forces.f` and `external` evaluated there;
// with `potential`, Psi(v) too (then `forces.energy` must have been evaluated).
void backward_euler_residual(const SimulationModel& model, double dt, const StepStart& start,
                             const Vec3Array& v, const ForceOutput& forces,
                             const ExternalForceOutput& external, Eigen::VectorXd& g,
                             StepPotential* potential = nullptr);

// dG/dv at p(v) (without the derivatives of B_H and phi): [ (1/T + alpha) M + beta K_k + T K(p) -
// T K_H - B_H ] / (T + beta).
void backward_euler_jacobian(const SimulationModel& model, double dt, const StepStart& start,
                             const ForceOutput& forces, const ExternalForceOutput& external,
                             EdgeBlockMatrix& jacobian);

}  // namespace softbody
