// The closed-form system the integrators are checked against (seed 001 §5's toy spring): every
// vertex tied to its rest position by a linear spring, f_i = k_i (p_i - x_i), K = diag(k_i I).
// With k_i = omega^2 m_i every vertex is an undamped harmonic oscillator of angular frequency
// omega, x(t) = x0 + A cos(omega t) + (v0 / omega) sin(omega t): the FEM integrators run it
// through the same code as any material (the force-model interface is the system interface).
#pragma once

#include <vector>

#include "engine/forces/force_model.h"

namespace softbody {

class VertexSpringModel final : public ForceModel {
 public:
  // One stiffness [N/m] per vertex of `topology`.
  VertexSpringModel(std::shared_ptr<const MeshTopology> topology, Vec3Array rest,
                    std::vector<double> stiffness);
  std::string name() const override { return "vertex-springs"; }
  using ForceModel::evaluate;
  void evaluate(const Vec3Array& p, unsigned what, ForceWorkspace& workspace,
                ForceOutput& out) const override;

 private:
  Vec3Array rest_;
  std::vector<double> stiffness_;
};

}  // namespace softbody
