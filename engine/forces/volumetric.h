// The volumetric penalty of seed 003 §4 (algB_T), addable to any model: per tetrahedron
// W_T = V psi(theta) with theta = C_T / C_T^ini - 1 (C: six-fold signed volume). It resists
// inversion, which StVK and spring networks alone do not (their energy is reflection-invariant).
//
// Seed 003 prints theta = (det F - 1)/6 beside Psi(c) = (C^ini/6) psi(c / C^ini); only
// theta = det F - 1 = Delta C / C^ini is consistent with the latter, so that is used here.
#pragma once

#include "engine/forces/element_assembly.h"
#include "engine/forces/force_model.h"
#include "engine/forces/model_with_term.h"

namespace softbody {

// psi(theta), psi'(theta), psi''(theta) of the chosen volumetric energy density.
void volumetric_density(VolumetricKind kind, const Material& material, double theta, double& psi,
                        double& dpsi, double& ddpsi);

class VolumetricTerm {
 public:
  VolumetricTerm(std::shared_ptr<const MeshTopology> topology, const Vec3Array& rest,
                 const Material& material, VolumetricKind kind);

  VolumetricKind kind() const { return kind_; }
  // Per-tetrahedron quantities computed once per evaluation and gathered by vertices and edges.
  struct TetState {
    double a1;                 // psi' / 6: force factor on dC/dp
    double a2;                 // psi'' / (6 C^ini): stiffness factor on dC/dp dC/dp^T
    std::array<Vec3, 4> grad;  // dC / dp_i
  };
  struct Workspace {
    std::vector<TetState> state;
    std::vector<double> energy;
  };

  // Adds tetrahedron t's energy, forces and stiffness (as requested) to `c` (local numbering).
  void add_element(const Vec3Array& p, Index t, unsigned what, ElementContribution& c) const;
  // Adds energy, forces and stiffness (as requested) of the term to `out`.
  void add(const Vec3Array& p, unsigned what, Workspace& workspace, ForceOutput& out) const;
  void add(const Vec3Array& p, unsigned what, ForceOutput& out) const {
    Workspace workspace;
    add(p, what, workspace, out);
  }

 private:
  std::shared_ptr<const MeshTopology> topology_;
  VolumetricKind kind_;
  Material material_;
  std::vector<double> rest_six_volume_;  // C_T^ini
  // Gather lists: the tetrahedron corners at each vertex and the tetrahedron edges at each edge.
  std::vector<Index> vertex_corner_offsets_, vertex_corners_;  // entries 4 t + local vertex
  std::vector<Index> edge_slot_offsets_, edge_slots_;          // entries 6 t + local edge
};

// A model plus a volumetric term, evaluated as one model.
using ModelWithVolumetric = ModelWithTerm<VolumetricTerm>;

}  // namespace softbody
