// Surface loads of a scene (`loads`): tractions on boundary triangles, scaled over time by a
// piecewise-linear curve. A dead load is a fixed traction per rest area (its direction and size do
// not change as the body deforms); a follower load is a pressure on the current surface, normal
// to each triangle as it is now. Each triangle's force is shared equally by its three vertices.
//
// The follower load's Jacobian couples the three vertices of a triangle, which mesh edges join, and
// is not symmetric: add_surface_load_stiffness gives its symmetric part on the edges, its skew part
// on the edges (EdgeBlockMatrix::edge_skew) and its skew vertex blocks. On a closed surface under
// one pressure the symmetric part is all of it (the load is then -dV/dp of p V, V the enclosed
// volume); on an open one the skew part lives on the loaded patch's rim. Newton's, the linearized
// step's and the static solver's matrices hold all of it (their solves then run GMRES on the
// factor of the symmetric part, which stays the preconditioner), so Newton converges
// quadratically on an open patch too.
#pragma once

#include <span>
#include <utility>
#include <vector>

#include "engine/mesh/topology.h"
#include "engine/sim/external_forces.h"

namespace softbody {

// s(t): linear between (t_i, s_i) points (ascending t), constant beyond the ends; 1 if empty.
struct LoadCurve {
  std::vector<std::pair<double, double>> points;
  double at(double t) const;
};

struct SurfaceLoad {
  std::vector<Triangle> faces;   // boundary triangles, counter-clockwise seen from outside
  Vec3 traction = Vec3::Zero();  // dead load [Pa], per rest area
  double pressure = 0;           // follower load [Pa], pushing against the outward normal
  LoadCurve curve;
  // The dead load's force on each loaded vertex at s = 1 (filled by make_surface_load).
  std::vector<std::pair<Index, Vec3>> dead_forces;
};

// A load on `faces` with its dead forces computed from the rest positions.
SurfaceLoad make_surface_load(std::vector<Triangle> faces, const Vec3Array& rest,
                              const Vec3& traction, double pressure, LoadCurve curve);

// Adds the loads' forces at positions p and time t to out.h, the dead loads' potential to
// out.potential; a follower load marks out as not conservative.
void add_surface_loads(std::span<const SurfaceLoad> loads, const Vec3Array& p, double t,
                       ExternalForceOutput& out);

// The follower loads' Jacobian at p and t: its edges' symmetric part appended to out.k_h_edges and
// skew part to out.k_h_edges_skew, its (skew) vertex blocks added to out.k_h. Face edges missing
// from `topology` (a face not of this mesh) are skipped.
void add_surface_load_stiffness(std::span<const SurfaceLoad> loads, const MeshTopology& topology,
                                const Vec3Array& p, double t, ExternalForceOutput& out);

// The total force the loads exert at p and t (for tests and reports).
Vec3 total_surface_load(std::span<const SurfaceLoad> loads, const Vec3Array& p, double t);

}  // namespace softbody
