// Element-by-element models: the total-Lagrangian StVK of seed 003 Appendix B (the reference the
// edge-based form must equal) and corotational linear FEM with one polar-decomposition rotation
// per element (seed 001 §3.1.3), the baseline SOFA and VegaFEM users know.
#pragma once

#include "engine/forces/element_assembly.h"
#include "engine/forces/rest_geometry.h"

namespace softbody {

class StvkTotalLagrangianModel final : public ForceModel {
 public:
  StvkTotalLagrangianModel(std::shared_ptr<const MeshTopology> topology, const Vec3Array& rest,
                           const Material& material);
  std::string name() const override { return "stvk-tl"; }
  std::unique_ptr<ForceWorkspace> make_workspace() const override {
    return std::make_unique<ElementWorkspace>();
  }
  using ForceModel::evaluate;
  void evaluate(const Vec3Array& p, unsigned what, ForceWorkspace& workspace,
                ForceOutput& out) const override;

 private:
  std::vector<TetRestGeometry> geometry_;
  TetColoring coloring_;
  double lambda_, mu_;
};

// Energy psi = mu |S - I|_F^2 + lambda/2 tr(S - I)^2 with F = R S the polar decomposition; its
// gradient is the familiar corotated force R K0 (R^T x - x0) (first Piola-Kirchhoff stress
// P = 2 mu (F - R) + lambda tr(S - I) R), and K is its exact Hessian including the rotation
// derivative, so finite-difference checks hold. (The "stiffness warping" approximation R K0 R^T
// drops the dR terms.)
class CorotationalModel final : public ForceModel {
 public:
  CorotationalModel(std::shared_ptr<const MeshTopology> topology, const Vec3Array& rest,
                    const Material& material);
  std::string name() const override { return "corotational"; }
  std::unique_ptr<ForceWorkspace> make_workspace() const override {
    return std::make_unique<ElementWorkspace>();
  }
  using ForceModel::evaluate;
  void evaluate(const Vec3Array& p, unsigned what, ForceWorkspace& workspace,
                ForceOutput& out) const override;

 private:
  std::vector<TetRestGeometry> geometry_;
  TetColoring coloring_;
  double lambda_, mu_;
};

// One tetrahedron of the total-Lagrangian StVK model (also used by the edge-based model for
// slivers, see stvk_edge.h).
void stvk_tl_element(const Vec3Array& p, const Tet& tet, const TetRestGeometry& g, double lambda,
                     double mu, unsigned what, ElementContribution& c);

// One tetrahedron of the corotational model.
void corotational_element(const Vec3Array& p, const Tet& tet, const TetRestGeometry& g,
                          double lambda, double mu, unsigned what, ElementContribution& c);

// Rotation R (det +1) and symmetric S with F = R S. For inverted F the smallest singular value
// becomes negative so that R stays a rotation.
void polar_decomposition(const Mat3& f, Mat3& r, Mat3& s);

}  // namespace softbody
