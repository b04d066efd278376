// A sparse 3n x 3n matrix with the mesh's edge pattern, in seed 003's edge-block form (eq. 29):
// one 3x3 diagonal block K(V) per vertex and one 3x3 off-diagonal block K(E) = d f(V_e(E,0)) /
// d p(V_e(E,1)) per edge; the block at (V_e(E,1), V_e(E,0)) is K(E)^T. A non-symmetric coupling
// (a follower load's, surface_loads.h) adds an optional skew part S(E): the blocks are then
// K(E) + S(E) at (V_e(E,0), V_e(E,1)) and (K(E) - S(E))^T across. Material models produce
// their stiffness in it, integrators their step matrices, and solvers multiply with it directly:
// it belongs to all of them, hence linalg/.
#pragma once

#include <Eigen/Dense>

#include "engine/mesh/topology.h"
#include "engine/types.h"

namespace softbody {

struct EdgeBlockMatrix {
  std::vector<Mat3> vertex_blocks;  // K(V)
  std::vector<Mat3> edge_blocks;    // K(E)
  // S(E), one per edge, or empty (then the off-diagonal part is symmetric). Factorizations see
  // only sym(A) and leave it out; products and Krylov solves include it.
  std::vector<Mat3> edge_skew;

  void resize(Index num_vertices, Index num_edges);
  void set_zero();

  // y = K x over the whole mesh (x, y: 3 per vertex).
  void multiply(const MeshTopology& topology, const Vec3Array& x, Vec3Array& y) const;
  // The full 3n x 3n matrix; for tests and small meshes only.
  Eigen::MatrixXd to_dense(const MeshTopology& topology) const;
  // Frobenius norm of the full matrix (each edge block counts twice).
  double frobenius_norm() const;
};

// ||a - b||_F / ||b||_F over the full matrices.
double relative_difference(const EdgeBlockMatrix& a, const EdgeBlockMatrix& b);
// ||a - b||_2 / ||b||_2 for stacked vertex vectors.
double relative_difference(const Vec3Array& a, const Vec3Array& b);

}  // namespace softbody
