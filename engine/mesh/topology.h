// Derived connectivity of a tetrahedral mesh: oriented edges, all triangular faces, the boundary
// surface, tetrahedron-sharing edge pairs (TSEPs) and vertex->edge adjacency (seed 003 §3).
#pragma once

#include <span>

#include "engine/mesh/tet_mesh.h"

namespace softbody {

// The six edges of a tetrahedron, as pairs of local vertex indices. Local edge k joins
// kTetEdgeLocal[k][0] and kTetEdgeLocal[k][1].
inline constexpr std::array<std::array<int, 2>, 6> kTetEdgeLocal = {
    {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}}};

// A tetrahedron-sharing edge pair: an unordered pair of distinct edges that belong to at least one
// common tetrahedron, stored with a fixed order (edge[0] < edge[1]).
struct Tsep {
  std::array<Index, 2> edge;  // E_p(P, 0), E_p(P, 1)
  // E_p2(P, i, j): the edge joining V_e(E_p(P,0), i) and V_e(E_p(P,1), j), or -1 where those two
  // vertices coincide (only in type-1 TSEPs).
  std::array<std::array<Index, 2>, 2> e_p2;
  // s(P, i, j): +1 when E_p2(P,i,j) starts at V_e(E_p(P,0), i), -1 when it ends there, 0 when
  // E_p2 does not exist (seed 003 eq. 34).
  std::array<std::array<std::int8_t, 2>, 2> s;
  // 1: the two edges share a vertex (they lie in a common face); 2: they are opposite edges.
  std::int8_t type;
};

struct VertexEdge {
  Index edge;
  Index sign;  // t(v, E): +1 when v is the first vertex of the edge, -1 when it is the second
};

// Which vertex pairs the stiffness matrix couples. Element laws couple the two ends of every mesh
// edge; a law that averages over the elements around a vertex (the average nodal pressure of
// forces/nodal_volume.h) also couples two vertices that share a neighbour.
enum class MatrixCoupling {
  kEdges,
  kSecondNeighbours,
};

struct Face {
  Triangle vertices;          // sorted ascending (identity of the face, not its orientation)
  std::array<Index, 2> tets;  // adjacent tetrahedra; tets[1] == -1 on the boundary
};

class MeshTopology {
 public:
  explicit MeshTopology(const TetMesh& mesh, MatrixCoupling coupling = MatrixCoupling::kEdges);

  Index num_vertices() const { return num_vertices_; }
  // Coupled vertex pairs: the mesh edges first (numbered as without coupling), then, with
  // MatrixCoupling::kSecondNeighbours, the pairs that only share a neighbour. Matrices
  // (EdgeBlockMatrix) have one block per entry; only the first num_mesh_edges() are tetrahedron
  // edges (tet_edges, TSEPs).
  Index num_edges() const { return static_cast<Index>(edges_.size()); }
  Index num_mesh_edges() const { return num_mesh_edges_; }
  MatrixCoupling coupling() const { return coupling_; }
  Index num_faces() const { return static_cast<Index>(faces_.size()); }
  Index num_tets() const { return static_cast<Index>(tets_.size()); }
  Index num_tseps() const { return static_cast<Index>(tseps_.size()); }
  Index num_tseps_of_type(int type) const;

  const std::vector<Tet>& tets() const { return tets_; }
  // Oriented edges: V_e(E,0) = edges()[E][0], V_e(E,1) = edges()[E][1].
  const std::vector<EdgeVertices>& edges() const { return edges_; }
  const std::vector<Face>& faces() const { return faces_; }
  const std::vector<Tsep>& tseps() const { return tseps_; }
  // Boundary triangles, oriented counter-clockwise seen from outside (outward normal).
  const std::vector<Triangle>& boundary_faces() const { return boundary_faces_; }
  // Vertices that appear on the boundary surface, ascending.
  const std::vector<Index>& boundary_vertices() const { return boundary_vertices_; }

  // Global edge index of local edge k (kTetEdgeLocal) of tetrahedron t.
  Index tet_edge(Index t, int k) const { return tet_edges_[static_cast<size_t>(t)][k]; }
  // True when that global edge runs from local vertex kTetEdgeLocal[k][1] to [k][0].
  bool tet_edge_flipped(Index t, int k) const {
    const EdgeVertices& e = edges_[static_cast<size_t>(tet_edge(t, k))];
    return e[0] != tets_[static_cast<size_t>(t)][kTetEdgeLocal[k][0]];
  }
  const std::vector<std::array<Index, 6>>& tet_edges() const { return tet_edges_; }

  // Edges incident to vertex v, each with t(v, E) of seed 003 eq. 27 (+1: v = V_e(E,0), -1: v =
  // V_e(E,1)).
  std::span<const VertexEdge> vertex_edges(Index v) const {
    return {vertex_edges_.data() + vertex_edge_offsets_[static_cast<size_t>(v)],
            vertex_edges_.data() + vertex_edge_offsets_[static_cast<size_t>(v) + 1]};
  }
  // Edge between a and b, or -1.
  Index find_edge(Index a, Index b) const;

 private:
  void build_edges();
  void build_faces();
  void build_tseps();
  void build_vertex_edges();
  void append_second_neighbour_pairs();

  Index num_vertices_;
  Index num_mesh_edges_ = 0;
  MatrixCoupling coupling_;
  std::vector<Tet> tets_;
  std::vector<EdgeVertices> edges_;
  std::vector<std::array<Index, 6>> tet_edges_;
  std::vector<Face> faces_;
  std::vector<Triangle> boundary_faces_;
  std::vector<Index> boundary_vertices_;
  std::vector<Tsep> tseps_;
  std::vector<Index> vertex_edge_offsets_;
  std::vector<VertexEdge> vertex_edges_;
};

}  // namespace softbody
