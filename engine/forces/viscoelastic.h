// Viscous stresses on the element path (seed 001 §2.6-2.7): a Prony series on the deviatoric Green
// strain (generalized Maxwell chain), bulk viscosity on its trace, and strain-rate damping by the
// correspondence principle. All act on the Green strain E, which rigid motion leaves unchanged, so
// unlike Rayleigh damping they never slow a body that moves without deforming.
//
// Prony (eqs. 2.6.2-2.6.4, the sum indexed from 1 so that mu_0 stays the long-term modulus, which
// here is the elastic law's own mu): per term i with shear modulus mu_i and relaxation time tau_i a
// memory tensor q_i (deviatoric, one per element) follows
//   q_i <- a_i q_i + g_i (dev E_{n+1} - dev E_n),  a_i = exp(-h/tau_i),  g_i = (tau_i/h)(1 - a_i),
// and adds the stress 2 mu_i q_i. The factor 2 goes where Hooke's law has it (S = 2 mu E +
// lambda tr(E) I): mu_i are shear moduli, so a relaxation test reads G(t) = mu_0 + sum mu_i
// exp(-t/tau_i) as the shear modulus.
// Rate terms, with E' = (E - E_n)/h over the step: bulk d_b tr(E') I and correspondence
// d_lambda tr(E') I + 2 d_mu E'.
//
// Within a step every one of these is affine in E(p): S = S0 + lambda' tr(E) I + 2 mu' E with
//   mu' = sum mu_i g_i + d_mu / h,   lambda' = -2/3 sum mu_i g_i + (d_lambda + d_b) / h,
//   S0 = sum 2 mu_i (a_i q_i - g_i dev E_n) - (d_lambda + d_b)/h tr(E_n) I - 2 d_mu/h E_n,
// the shape of a prestressed StVK element, so forces and the (symmetric) tangent come from the
// same kernel and Newton sees the consistent tangent. The memory lives in the simulation state
// (SimulationState::material_memory), never here: this model is immutable and shared by sessions.
#pragma once

#include <memory>
#include <vector>

#include "engine/forces/element_assembly.h"
#include "engine/forces/material.h"
#include "engine/forces/rest_geometry.h"

namespace softbody {

struct PronyTerm {
  double mu = 0;   // shear modulus of the term [Pa]
  double tau = 1;  // relaxation time [s]
};

struct ViscousMaterial {
  std::vector<PronyTerm> prony;
  double bulk_viscosity = 0;  // d_b [Pa s]
  double rate_lambda = 0;     // correspondence damping d_lambda [Pa s]
  double rate_mu = 0;         // correspondence damping d_mu [Pa s]
  bool empty() const {
    return prony.empty() && bulk_viscosity == 0 && rate_lambda == 0 && rate_mu == 0;
  }
  void check() const;  // throws std::invalid_argument naming the bad value
};

// A step's view of the viscous stress: the affine law of the step for every element.
struct ViscousStep {
  double dt = 0;
  double lambda = 0, mu = 0;       // lambda', mu' above
  std::vector<Mat3> prestress;     // S0 per element
  std::vector<Mat3> start_strain;  // E_n per element
};

class ViscousModel {
 public:
  // `stvk_elastic`: the elastic law when it is the total-Lagrangian StVK ("stvk-tl"); the two
  // then add up to one prestressed StVK element per tetrahedron (evaluate_with_elastic).
  ViscousModel(std::shared_ptr<const MeshTopology> topology, const Vec3Array& rest,
               ViscousMaterial material, const Material* stvk_elastic = nullptr);
  const ViscousMaterial& material() const { return material_; }
  // Memory values per element (6 per Prony term: the upper triangle of q_i).
  int memory_per_element() const { return 6 * static_cast<int>(material_.prony.size()); }
  size_t memory_size() const {
    return static_cast<size_t>(memory_per_element()) * geometry_.size();
  }

  // The step from positions p_n (its start) of length dt with `memory` (empty: all zero, a body
  // that never deformed). The rate terms (correspondence damping, bulk viscosity) take the
  // strain rate (E(p) - E_n) / dt, backward Euler's; a multistep integrator passes `rate`, its
  // own derivative formula (E(p) - sum_j w_j E(p_j)) / rate_dt, so that they keep its order.
  struct RateFormula {
    std::vector<const Vec3Array*> positions;  // p_n, p_{n-1}, ...
    std::vector<double> weights;              // w_j
    double dt = 0;                            // beta h
  };
  void begin_step(const Vec3Array& p_start, const std::vector<double>& memory, double dt,
                  ViscousStep& step, const RateFormula* rate = nullptr) const;
  // Adds the step's viscous energy, forces and tangent at p to `out` (sized by the elastic model).
  void add(const Vec3Array& p, const ViscousStep& step, unsigned what, ElementWorkspace& workspace,
           ForceOutput& out) const;
  // Whether evaluate_with_elastic can stand in for the elastic model plus add().
  bool fuses_elastic() const { return fused_; }
  // Fills `out` (as ForceModel::evaluate does) with the StVK elastic law and the step's viscous
  // stress in one pass over the elements: what the two cost apart in one.
  void evaluate_with_elastic(const Vec3Array& p, const ViscousStep& step, unsigned what,
                             ElementWorkspace& workspace, ForceOutput& out) const;
  // The memory after the step ended at p_end (sized to memory_size()).
  void update_memory(const Vec3Array& p_end, const ViscousStep& step,
                     std::vector<double>& memory) const;

 private:
  std::shared_ptr<const MeshTopology> topology_;
  std::vector<TetRestGeometry> geometry_;
  TetColoring coloring_;
  ViscousMaterial material_;
  bool fused_ = false;
  double elastic_lambda_ = 0, elastic_mu_ = 0;
};

}  // namespace softbody
