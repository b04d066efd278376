// Element-by-element material models: one ElementModel shell (rest geometry, colouring, assembly)
// around a per-tetrahedron kernel. Kernels: the total-Lagrangian StVK of seed 003 Appendix B (the
// reference the edge-based form must equal) and corotational linear FEM with one
// polar-decomposition rotation per element (seed 001 §3.1.3), the baseline SOFA and VegaFEM users
// know. A new element law is a kernel and a row in force_model_table.cpp.
#pragma once

#include <stdexcept>
#include <type_traits>

#include "engine/forces/element_assembly.h"
#include "engine/forces/rest_geometry.h"

namespace softbody {

// One tetrahedron of the total-Lagrangian StVK model (also used by the edge-based model for
// slivers, see stvk_edge.h).
void stvk_tl_element(const Vec3Array& p, const Tet& tet, const TetRestGeometry& g, double lambda,
                     double mu, unsigned what, ElementContribution& c);
// The same law plus a constant second Piola-Kirchhoff prestress S0 (symmetric): S = S0 + lambda
// tr(E) I + 2 mu E. lambda may be negative (a deviatoric law has lambda = -2 mu / 3). The step
// form of the viscous stress (viscoelastic.h) is of this shape.
void stvk_tl_element_prestressed(const Vec3Array& p, const Tet& tet, const TetRestGeometry& g,
                                 double lambda, double mu, const Mat3& prestress, unsigned what,
                                 ElementContribution& c);

// One tetrahedron of the corotational model: energy psi = mu |S - I|_F^2 + lambda/2 tr(S - I)^2
// with F = R S the polar decomposition; its gradient is the familiar corotated force
// R K0 (R^T x - x0) (first Piola-Kirchhoff stress P = 2 mu (F - R) + lambda tr(S - I) R), and K
// is its exact Hessian including the rotation derivative, so finite-difference checks hold. (The
// "stiffness warping" approximation R K0 R^T drops the dR terms.)
void corotational_element(const Vec3Array& p, const Tet& tet, const TetRestGeometry& g,
                          double lambda, double mu, unsigned what, ElementContribution& c);
// The same from the element's deformation gradient F (for laws that need F themselves).
void corotational_element_of(const Mat3& f, const TetRestGeometry& g, double lambda, double mu,
                             unsigned what, ElementContribution& c);

// Rotation R (det +1) and symmetric S with F = R S. For inverted F the smallest singular value
// becomes negative so that R stays a rotation.
void polar_decomposition(const Mat3& f, Mat3& r, Mat3& s);

// Kernels name a law and compute one tetrahedron's contribution: ElementModel<Kernel> wraps them.
using ElementFunction = void (*)(const Vec3Array& p, const Tet& tet, const TetRestGeometry& g,
                                 double lambda, double mu, unsigned what, ElementContribution& c);
template <ElementFunction Element, const char* Name>
struct KernelOf {
  static constexpr const char* kName = Name;
  static void element(const Vec3Array& p, const Tet& tet, const TetRestGeometry& g, double lambda,
                      double mu, unsigned what, ElementContribution& c) {
    Element(p, tet, g, lambda, mu, what, c);
  }
};

inline constexpr char kStvkTotalLagrangianName[] = "stvk-tl";
inline constexpr char kCorotationalName[] = "corotational";
using StvkTotalLagrangianKernel = KernelOf<stvk_tl_element, kStvkTotalLagrangianName>;
using CorotationalKernel = KernelOf<corotational_element, kCorotationalName>;

// A kernel with parameters of its own (beyond lambda and mu) is built from the material; the
// others are stateless.
template <typename Kernel>
Kernel make_kernel(const Material& material) {
  if constexpr (std::is_constructible_v<Kernel, const Material&>)
    return Kernel(material);
  else
    return Kernel{};
}

template <typename Kernel>
class ElementModel final : public ForceModel {
 public:
  ElementModel(std::shared_ptr<const MeshTopology> topology, const Vec3Array& rest,
               const Material& material)
      : ForceModel(std::move(topology)),
        kernel_(make_kernel<Kernel>(material)),
        geometry_(compute_rest_geometry(rest, topology_->tets())),
        coloring_(color_tets(*topology_)),
        lambda_(material.lambda()),
        mu_(material.mu()) {
    material.check();
    if (static_cast<Index>(rest.size()) != topology_->num_vertices())
      throw std::invalid_argument("rest positions do not match the mesh");
  }
  std::string name() const override { return Kernel::kName; }
  std::unique_ptr<ForceWorkspace> make_workspace() const override {
    return std::make_unique<ElementWorkspace>();
  }
  using ForceModel::evaluate;
  void evaluate(const Vec3Array& p, unsigned what, ForceWorkspace& workspace,
                ForceOutput& out) const override {
    prepare_output(what, out);
    const auto& tets = topology_->tets();
    assemble_elements(*topology_, coloring_, what, dynamic_cast<ElementWorkspace&>(workspace), out,
                      [&](Index t, unsigned w, ElementContribution& c) {
                        kernel_.element(p, tets[static_cast<size_t>(t)],
                                        geometry_[static_cast<size_t>(t)], lambda_, mu_, w, c);
                      });
  }
  bool element_form() const override { return true; }
  void add_element(const Vec3Array& p, Index t, unsigned what,
                   ElementContribution& c) const override {
    ElementContribution own;
    own.vertex = c.vertex;
    kernel_.element(p, topology_->tets()[static_cast<size_t>(t)], geometry_[static_cast<size_t>(t)],
                    lambda_, mu_, what, own);
    add_contribution(own, what, c);
  }

 private:
  Kernel kernel_;
  std::vector<TetRestGeometry> geometry_;
  TetColoring coloring_;
  double lambda_, mu_;
};

using StvkTotalLagrangianModel = ElementModel<StvkTotalLagrangianKernel>;
using CorotationalModel = ElementModel<CorotationalKernel>;

}  // namespace softbody
