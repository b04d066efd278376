// Average nodal pressure (ANP) tetrahedra for nearly incompressible materials (Bonet & Burton,
// "A simple average nodal pressure tetrahedral element for incompressible and nearly
// incompressible dynamic explicit applications", 1998).
//
// Linear tetrahedra lock near nu = 0.5: one volume per element leaves too few deformation modes
// that keep every element's volume. ANP keeps the volume per vertex instead. Each vertex a owns a
// quarter of every tetrahedron around it,
//   V_a = sum_{e at a} V_e / 4 at rest,  v_a(p) = sum_{e at a} v_e(p) / 4,  J_a = v_a / V_a,
// and the volumetric energy is sum_a V_a kappa (J_a - 1)^2 / 2. The element law keeps the shear
// and a little of lambda: it is evaluated with the same mu and lambda_e = min(lambda, mu), and
// kappa = lambda - lambda_e, so that for small strains the body has the material's bulk modulus
// lambda + 2 mu / 3. Why not lambda_e = 0: StVK with lambda = 0 resists the collapse of an element
// only through its shear energy, which vanishes as the element flattens; the default scene's push
// then ran to 3.8 m/s and two runs 1e-9 apart parted by 0.4 % of the diagonal. With lambda_e = mu
// (a nu = 0.25 material, where linear tetrahedra barely lock) it stays below 0.8 m/s and follows
// its converged run to 4e-7, while a nu = 0.495 cantilever still bends 0.89x as far as a nu = 0.3
// one (0.32x with one volume per element).
//
// Forces stay per element: f = sum_e (sum_{a in e} p_a / 24) dC_e/dp with p_a = kappa (J_a - 1)
// the nodal pressure (C = 6 v). The tangent adds, besides that per-element term, the rank-one
// sum_a (kappa / V_a) dv_a/dp dv_a/dp^T, which couples every two vertices around a: the topology
// must be built with MatrixCoupling::kSecondNeighbours.
#pragma once

#include <stdexcept>

#include "engine/forces/force_model.h"
#include "engine/forces/model_with_term.h"

namespace softbody {

// How much of lambda the element law keeps under ANP, in units of mu (see the top of the file).
inline constexpr double kElementLambdaOverMu = 1.0;
// The element law's material under ANP: the same shear modulus and density, lambda_e =
// min(lambda, kElementLambdaOverMu mu); and the nodal term's kappa = lambda - lambda_e.
Material nodal_split(const Material& material);
double nodal_kappa(const Material& material);

// Why the average nodal pressure cannot be built for a mesh (a vertex with no volume around it): a
// type of its own so that scene errors name material.pressure, not the model.
class NodalVolumeError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

class NodalVolumeTerm {
 public:
  // kappa: the nodal bulk stiffness (nodal_kappa of the material).
  NodalVolumeTerm(std::shared_ptr<const MeshTopology> topology, const Vec3Array& rest,
                  double kappa);

  double kappa() const { return kappa_; }
  struct Workspace {
    std::vector<std::array<Vec3, 4>> grad;  // dC_e / dp per tetrahedron
    std::vector<double> six_volume;         // C_e
    std::vector<double> pressure;           // p_a per vertex
    std::vector<double> energy;             // per vertex
    std::vector<double> tet_factor;         // sum_{a in e} p_a / 24 per tetrahedron
    std::vector<Vec3> star_gradient;        // dv_a / dp_b for b in star(a), flat
  };
  // Adds energy, forces and stiffness (as requested) of the term to `out`.
  void add(const Vec3Array& p, unsigned what, Workspace& workspace, ForceOutput& out) const;

 private:
  void nodal_volumes(const Vec3Array& p, Workspace& ws) const;

  std::shared_ptr<const MeshTopology> topology_;
  double kappa_;
  std::vector<double> rest_volume_;  // V_a
  std::vector<Index> vertex_corner_offsets_, vertex_corners_;
  std::vector<Index> edge_slot_offsets_, edge_slots_;
  // star(a): a and its neighbours, at star_offsets_[a] .. star_offsets_[a + 1] of the flat star
  // arrays; corner_star_slots_[k][i]: the flat slot of corner i of the tetrahedron of corner
  // entry k (vertex_corners_) in the star of that entry's vertex.
  std::vector<Index> star_offsets_;
  std::vector<std::array<Index, 4>> corner_star_slots_;
  // Rank-one gathers: per vertex and per coupled pair, (a, slot of the first vertex, slot of the
  // second) with slots into the flat star arrays.
  struct Gather {
    Index node, first, second;
  };
  std::vector<Index> vertex_gather_offsets_, edge_gather_offsets_;
  std::vector<Gather> vertex_gathers_, edge_gathers_;
};

// An element law whose volume is held mostly per vertex: `base` (built with nodal_split's
// material) plus the nodal volume term.
using ModelWithNodalVolume = ModelWithTerm<NodalVolumeTerm>;

}  // namespace softbody
