// Edge-based St.Venant-Kirchhoff (seed 003 §3): the strain energy as a quadratic form of the
// squared-edge-length changes zeta(E), with constants on edges (H, L(E)) and on
// tetrahedron-sharing edge pairs (L(P)). With include_tseps = false the TSEP terms are skipped,
// which gives the nonlinear spring network (NSN) of §3.5.
//
// All loops run in gather form (each output written by one iteration, fixed summation order), so
// results do not depend on the thread count. The paper's algF/algKE scatter over TSEPs instead;
// gathering costs more multiplications per TSEP but needs no atomics or colouring.
#pragma once

#include "engine/forces/force_model.h"

namespace softbody {

class StvkEdgeModel final : public ForceModel {
 public:
  StvkEdgeModel(std::shared_ptr<const MeshTopology> topology, const Vec3Array& rest, const Material& material,
                bool include_tseps);

  std::string name() const override { return include_tseps_ ? "stvk-edge" : "nsn"; }
  std::unique_ptr<ForceWorkspace> make_workspace() const override;
  void evaluate(const Vec3Array& p, unsigned what, ForceWorkspace& workspace, ForceOutput& out) const override;

  // Precomputed constants, exposed for tests.
  const std::vector<double>& edge_h() const { return h_; }
  const std::vector<double>& edge_l() const { return l_edge_; }
  const std::vector<double>& tsep_l() const { return l_tsep_; }

 private:
  // g(E) += L(P) zeta(other edge of P), one list per edge.
  struct GNeighbor {
    Index other_edge;
    double l;
  };
  // K(target) += coef * ptilde(u) ptilde(v)^T, one list per target edge (seed 003 eq. 31).
  struct KTerm {
    double coef;
    Index u, v;
  };

  void build_gather_lists();

  bool include_tseps_;
  std::vector<double> h_;        // H(E) = |ptilde_ini(E)|^2
  std::vector<double> l_edge_;   // L(E)
  std::vector<double> l_tsep_;   // L(P), indexed like topology().tseps()
  std::vector<Index> g_offsets_;
  std::vector<GNeighbor> g_neighbors_;
  std::vector<Index> k_offsets_;
  std::vector<KTerm> k_terms_;
};

}  // namespace softbody
