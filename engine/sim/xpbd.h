// Extended position-based dynamics (XPBD; Macklin, Mueller and Chentanez 2016; seed 004's
// issue): each step (or substep, integrator.substeps) predicts y = x_n + h v_n + h^2 a_ext and
// moves the positions onto compliant constraints by Gauss-Seidel projections, a fixed number of
// iterations, accumulating one multiplier per constraint:
//   dlambda = (-C - a~ lambda) / (grad C W grad C^T + a~),   x += W grad C^T dlambda,
// a~ = 1 / (k h^2), W the inverse masses; then v = (x - x_n) / h and a damping pass on v.
// - Elasticity: two constraints per tetrahedron (xpbd_constraints.h: snh, cnh, corotational,
//   stvk-tl), projected together as one 2x2 system (Macklin and Mueller 2021: solving the
//   deviatoric and volumetric constraints apart converges poorly). Tetrahedra of one colour share
//   no vertex and are projected in parallel; the colours in order make every sweep the same
//   sequential Gauss-Seidel sweep for any thread count (bit-identical).
// - Damping: Rayleigh alpha by the implicit mass term (masses (1 + alpha h) M, prediction moved
//   towards x_n), exactly as implicit Euler has it. Rayleigh beta as dampers beta k V on each
//   constraint's rate (the Gauss-Newton part of beta K), solved implicitly by one Gauss-Seidel
//   pass over the velocities after the positions (XPBD's own constraint damping, gamma inside the
//   projection, divides each correction by 1 + beta/h: at a few iterations the knight, beta =
//   0.01 s, then sagged and toppled).
// - Anchors (scene anchors, grabbing tools): a spring k and damper c towards a moving target are
//   one quadratic potential per step, a compliant constraint x = centre of stiffness k + c/h.
// - Obstacles (penalty or constraint contact, tools): a compliant non-penetration constraint per
//   vertex, d(x) >= 0 with compliance 1/K_N, its multiplier kept >= 0; the penalty law's normal
//   damping C_N and viscous friction C_T d as implicit dampers on the vertex's velocity relative
//   to the surface in the damping pass.
// - Converged, XPBD's fixed point is implicit Euler's only for constraints whose gradients do not
//   turn while their multipliers accumulate (docs/solvers.md measures the gap); many substeps of
//   one iteration (Macklin et al. 2019, "small steps") approach the exact dynamics instead.
#pragma once

#include <array>

#include "engine/forces/element_assembly.h"
#include "engine/forces/rest_geometry.h"
#include "engine/sim/integrator.h"
#include "engine/sim/stages/step_forces.h"
#include "engine/sim/xpbd_constraints.h"

namespace softbody {

// The model's law as XPBD's constraints; throws std::invalid_argument naming what the model has
// that XPBD cannot use.
XpbdMaterial check_xpbd_model(const SimulationModel& model);

// Macklin and Mueller's Neo-Hookean constraints (snh, cnh) carry shear explicitly. Their C_D =
// |F| is sqrt(3) at rest, held there by a multiplier of rest-state size that C_H's balances. A
// shear changes C_D and C_H only to second order, so a projection corrects none of it: the shear
// is pushed back by those multipliers times the turn of the gradients, once per substep (the
// multipliers restart from zero), which is an explicit step. It is stable while an element's gain
// g = h^2 k_D V sum_i w_i |grad N_i|^2 / 3 (its deviatoric constraint's stiffness 1/a~ over its
// J W J^T at rest) stays below about 1; above it a sweep amplifies any perturbation, round-off
// included, and a body at rest with no loads folds (the engine tests' bar: at rest from 12
// substeps of a 30 ms step, g_max = 1.0; folded at 10, g_max = 1.5). The laws whose constraints
// vanish at rest (corotational, stvk-tl) solve shear implicitly and have no such limit. Each
// element's g at substep h (0 for those laws and for elements without a free vertex), in the
// mesh's order.
std::vector<double> xpbd_explicit_shear_gains(const SimulationModel& model, double h);

class Xpbd final : public Integrator {
 public:
  explicit Xpbd(std::shared_ptr<const SimulationModel> model);
  StepStats step(SimulationState& state, const StepInputs& inputs = {}) override;

 private:
  bool attempt(SimulationState& state, double h, StepStats& stats);
  // Visits every element (its index in elements_), colour by colour, a colour's in parallel.
  template <typename Body>
  void for_each_element_by_color(Body&& body) const;
  // Element t's two constraints at x_: values, per-vertex gradients, the vertices' inverse masses
  // and the symmetric 2x2 J W J^T (a00, a01, a11): what its projection and its damping solve.
  struct ElementJacobian {
    double value[2];
    double grad[2][4][3];  // constraint k's gradient with respect to vertex i
    std::array<double, 4> w;
    double a00 = 0, a01 = 0, a11 = 0;
    Vec3 gradient(size_t k, size_t i) const {
      return {grad[k][i][0], grad[k][i][1], grad[k][i][2]};
    }
  };

  template <XpbdLaw kLaw>
  ElementJacobian element_jacobian(size_t t) const;
  // out[vertex] += W grad C^T (d0, d1) over the element's free vertices.
  static void add_to_vertices(const Tet& tet, const ElementJacobian& j, double d0, double d1,
                              Vec3Array& out);
  // Projects element t's two constraints; returns their squared residual before it.
  template <XpbdLaw kLaw>
  double project_element(size_t t, double inverse_h2);
  // One Gauss-Seidel sweep over the elements (the law chosen once per sweep, not per element).
  void project_elements(double inverse_h2);
  void project_anchors();
  // Vertex i against every obstacle.
  void project_contacts(size_t i, double h);
  // Rayleigh beta on element t's constraint rates, implicitly, on velocities v.
  template <XpbdLaw kLaw>
  void damp_element(size_t t, double h, Vec3Array& v) const;
  void damp_elements(double h, Vec3Array& v) const;
  // The contacts' normal damping and viscous friction at the end, on velocities v.
  void damp_contacts(double h, Vec3Array& v) const;

  // From the model, once.
  XpbdMaterial material_;
  TetColoring coloring_;
  struct Element {
    Tet tet;
    Mat3 shape;     // columns: vertices 1..3's shape gradients; F = [p_i - p_0] shape^T
    double volume;  // at rest
    std::array<double, 2> compliance_h2;  // 1 / (k V) of its two constraints: a~ h^2
  };
  std::vector<Element> elements_;  // the tetrahedra in colour order

  // Per step or substep.
  StepLoads loads_;
  std::vector<Obstacle> obstacles_;                    // posed at the step's end
  std::vector<std::pair<Vec3, Vec3>> obstacle_poses_;  // reference point's position, velocity
  struct AnchorTarget {
    size_t vertex;
    Vec3 centre;
    double compliance;  // 1 / ((k + c/h) h^2)
  };
  std::vector<AnchorTarget> anchors_;
  Vec3Array x_;
  std::vector<double> inverse_mass_;
  std::vector<std::array<double, 2>> element_lambda_;  // per element, in elements_' order
  std::vector<double> element_residual_;
  std::vector<Vec3> anchor_lambda_;
  std::vector<double> contact_lambda_;  // vertex-major, one per obstacle
};

}  // namespace softbody
