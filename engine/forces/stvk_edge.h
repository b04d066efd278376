// Edge-based St.Venant-Kirchhoff (seed 003 §3): the strain energy as a quadratic form of the
// squared-edge-length changes zeta(E), with constants on edges (H, L(E)) and on
// tetrahedron-sharing edge pairs (L(P)). With include_tseps = false the TSEP terms are skipped,
// which gives the nonlinear spring network (NSN) of §3.5.
//
// Slivers: folding a tetrahedron into edge constants multiplies round-off by about its squared
// aspect ratio (the strain is recovered from squared-length changes through Q_T^-1 ~ 1/h^2), where
// the element-wise form loses only the aspect ratio once. Tetrahedra with quality below
// `sliver_quality` (see tet_quality) are therefore evaluated element-wise, in the
// total-Lagrangian form, and added after the edge loops; on bunny.mesh this keeps stvk-edge equal
// to stvk-tl to ~1e-13 instead of ~4e-10. The NSN model has no such split.
//
// All loops run in gather form (each output written by one iteration, fixed summation order), so
// results do not depend on the thread count. The paper's algF/algKE scatter over TSEPs instead;
// gathering costs more multiplications per TSEP but needs no atomics or colouring.
#pragma once

#include "engine/forces/element_assembly.h"
#include "engine/forces/force_model.h"
#include "engine/forces/rest_geometry.h"

namespace softbody {

class StvkEdgeModel final : public ForceModel {
 public:
  static constexpr double kDefaultSliverQuality = 0.003;

  StvkEdgeModel(std::shared_ptr<const MeshTopology> topology, const Vec3Array& rest,
                const Material& material, bool include_tseps,
                double sliver_quality = kDefaultSliverQuality);

  std::string name() const override { return include_tseps_ ? "stvk-edge" : "nsn"; }
  std::unique_ptr<ForceWorkspace> make_workspace() const override;
  using ForceModel::evaluate;
  void evaluate(const Vec3Array& p, unsigned what, ForceWorkspace& workspace,
                ForceOutput& out) const override;

  // Precomputed constants, exposed for tests.
  const std::vector<double>& edge_h() const { return h_; }
  const std::vector<double>& edge_l() const { return l_edge_; }
  const std::vector<double>& tsep_l() const { return l_tsep_; }
  // Tetrahedra evaluated element-wise.
  const std::vector<Index>& sliver_tets() const { return sliver_tets_; }

 private:
  // K-term of seed 003 eq. 31 before grouping: K(target) += coef * ptilde(u) ptilde(v)^T.
  struct KTerm {
    double coef;
    Index u, v;
  };

  void build_gather_lists();

  bool include_tseps_;
  std::vector<double> h_;       // H(E) = |ptilde_ini(E)|^2
  std::vector<double> l_edge_;  // L(E)
  std::vector<double> l_tsep_;  // L(P), indexed like topology().tseps()
  // g-lists, per edge E: g(E) += g_l_[k] * zeta(g_other_[k]) (structure of arrays: 12 bytes per
  // entry; these loops are memory-bound).
  std::vector<Index> g_offsets_;
  std::vector<Index> g_other_;
  std::vector<double> g_l_;
  // K-lists, per target edge: groups of terms sharing u, so that
  // K(E) += sum_groups ptilde(u) (sum_terms coef ptilde(v))^T.
  std::vector<Index> k_group_offsets_;  // per edge, into the group arrays
  std::vector<Index> k_group_u_;
  std::vector<Index> k_group_end_;  // end of the group's terms in k_coef_/k_v_
  std::vector<double> k_coef_;
  std::vector<Index> k_v_;
  std::vector<Index> sliver_tets_;
  std::vector<TetRestGeometry> sliver_geometry_;  // indexed by tetrahedron (only slivers filled)
  TetColoring sliver_coloring_;
  double lambda_, mu_;
};

}  // namespace softbody
