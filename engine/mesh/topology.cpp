#include "engine/mesh/topology.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>

namespace softbody {
namespace {

std::uint64_t pair_key(Index a, Index b) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) |
         static_cast<std::uint32_t>(b);
}

// Outward-facing triangles of a positively oriented tetrahedron (0,1,2,3), paired with the local
// index of the vertex opposite each face.
constexpr std::array<std::array<int, 3>, 4> kOutwardFaces = {
    {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}}};

}  // namespace

MeshTopology::MeshTopology(const TetMesh& mesh, MatrixCoupling coupling)
    : num_vertices_(mesh.num_vertices()), coupling_(coupling), tets_(mesh.tets) {
  for (const Tet& t : tets_) {
    for (Index v : t) {
      if (v < 0 || v >= num_vertices_) {
        throw std::invalid_argument(
            "MeshTopology: vertex index out of range (validate the mesh first)");
      }
    }
  }
  build_edges();
  build_vertex_edges();
  build_faces();
  build_tseps();
  num_mesh_edges_ = num_edges();
  if (coupling == MatrixCoupling::kSecondNeighbours) append_second_neighbour_pairs();
}

void MeshTopology::append_second_neighbour_pairs() {
  // Every pair of distinct neighbours of a vertex that is not a mesh edge itself, oriented and
  // ordered as the mesh edges are, numbered after them.
  std::vector<std::uint64_t> mesh_keys(edges_.size());
  for (size_t e = 0; e < edges_.size(); ++e) mesh_keys[e] = pair_key(edges_[e][0], edges_[e][1]);
  std::vector<std::uint64_t> keys;
  std::vector<Index> neighbours;
  for (Index v = 0; v < num_vertices_; ++v) {
    neighbours.clear();
    for (const VertexEdge& ve : vertex_edges(v)) {
      const EdgeVertices& e = edges_[static_cast<size_t>(ve.edge)];
      neighbours.push_back(e[0] == v ? e[1] : e[0]);
    }
    std::sort(neighbours.begin(), neighbours.end());
    for (size_t i = 0; i < neighbours.size(); ++i)
      for (size_t j = i + 1; j < neighbours.size(); ++j)
        keys.push_back(pair_key(neighbours[i], neighbours[j]));
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  std::vector<std::uint64_t> extra;
  std::set_difference(keys.begin(), keys.end(), mesh_keys.begin(), mesh_keys.end(),
                      std::back_inserter(extra));
  for (std::uint64_t k : extra)
    edges_.push_back({static_cast<Index>(k >> 32), static_cast<Index>(k & 0xffffffffu)});
  build_vertex_edges();
}

void MeshTopology::build_edges() {
  // Each edge is oriented from its lower to its higher vertex index and edges are numbered in
  // lexicographic order, so that edges of nearby vertices sit nearby in memory.
  std::vector<std::uint64_t> keys;
  keys.reserve(tets_.size() * 6);
  for (const Tet& t : tets_) {
    for (const auto& le : kTetEdgeLocal) {
      Index a = t[le[0]], b = t[le[1]];
      keys.push_back(pair_key(std::min(a, b), std::max(a, b)));
    }
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  edges_.resize(keys.size());
  for (size_t e = 0; e < keys.size(); ++e) {
    edges_[e] = {static_cast<Index>(keys[e] >> 32), static_cast<Index>(keys[e] & 0xffffffffu)};
  }
  tet_edges_.resize(tets_.size());
  for (size_t t = 0; t < tets_.size(); ++t) {
    for (int k = 0; k < 6; ++k) {
      Index a = tets_[t][kTetEdgeLocal[k][0]], b = tets_[t][kTetEdgeLocal[k][1]];
      auto it =
          std::lower_bound(keys.begin(), keys.end(), pair_key(std::min(a, b), std::max(a, b)));
      tet_edges_[t][k] = static_cast<Index>(it - keys.begin());
    }
  }
}

void MeshTopology::build_vertex_edges() {
  vertex_edge_offsets_.assign(static_cast<size_t>(num_vertices_) + 1, 0);
  for (const EdgeVertices& e : edges_) {
    ++vertex_edge_offsets_[static_cast<size_t>(e[0]) + 1];
    ++vertex_edge_offsets_[static_cast<size_t>(e[1]) + 1];
  }
  for (size_t v = 0; v < static_cast<size_t>(num_vertices_); ++v) {
    vertex_edge_offsets_[v + 1] += vertex_edge_offsets_[v];
  }
  vertex_edges_.resize(edges_.size() * 2);
  std::vector<Index> fill(vertex_edge_offsets_.begin(), vertex_edge_offsets_.end() - 1);
  for (size_t e = 0; e < edges_.size(); ++e) {
    vertex_edges_[static_cast<size_t>(fill[static_cast<size_t>(edges_[e][0])]++)] = {
        static_cast<Index>(e), +1};
    vertex_edges_[static_cast<size_t>(fill[static_cast<size_t>(edges_[e][1])]++)] = {
        static_cast<Index>(e), -1};
  }
}

Index MeshTopology::find_edge(Index a, Index b) const {
  for (const VertexEdge& ve : vertex_edges(a)) {
    const EdgeVertices& e = edges_[static_cast<size_t>(ve.edge)];
    if (e[0] == b || e[1] == b) return ve.edge;
  }
  return -1;
}

void MeshTopology::build_faces() {
  struct TetFace {
    Triangle sorted;
    Triangle outward;
    Index tet;
  };
  std::vector<TetFace> all;
  all.reserve(tets_.size() * 4);
  for (size_t t = 0; t < tets_.size(); ++t) {
    for (const auto& lf : kOutwardFaces) {
      Triangle outward = {tets_[t][lf[0]], tets_[t][lf[1]], tets_[t][lf[2]]};
      Triangle sorted = outward;
      std::sort(sorted.begin(), sorted.end());
      all.push_back({sorted, outward, static_cast<Index>(t)});
    }
  }
  std::sort(all.begin(), all.end(), [](const TetFace& a, const TetFace& b) {
    return a.sorted != b.sorted ? a.sorted < b.sorted : a.tet < b.tet;
  });
  std::vector<bool> on_boundary(static_cast<size_t>(num_vertices_), false);
  for (size_t i = 0; i < all.size();) {
    size_t j = i;
    while (j < all.size() && all[j].sorted == all[i].sorted) ++j;
    if (j - i > 2) {
      throw std::invalid_argument(
          "MeshTopology: a face is shared by more than two tetrahedra "
          "(validate the mesh first)");
    }
    Face f{all[i].sorted, {all[i].tet, j - i == 2 ? all[i + 1].tet : Index{-1}}};
    faces_.push_back(f);
    if (j - i == 1) {
      boundary_faces_.push_back(all[i].outward);
      for (Index v : all[i].outward) on_boundary[static_cast<size_t>(v)] = true;
    }
    i = j;
  }
  for (Index v = 0; v < num_vertices_; ++v) {
    if (on_boundary[static_cast<size_t>(v)]) boundary_vertices_.push_back(v);
  }
}

void MeshTopology::build_tseps() {
  // Enumerate the 15 edge pairs of every tetrahedron and keep each distinct pair once: pairs in a
  // shared face are shared between tetrahedra, opposite-edge pairs are not.
  std::vector<std::uint64_t> keys;
  keys.reserve(tets_.size() * 15);
  for (const auto& te : tet_edges_) {
    for (int a = 0; a < 6; ++a) {
      for (int b = a + 1; b < 6; ++b) {
        keys.push_back(pair_key(std::min(te[a], te[b]), std::max(te[a], te[b])));
      }
    }
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  tseps_.resize(keys.size());
  for (size_t p = 0; p < keys.size(); ++p) {
    Tsep& t = tseps_[p];
    t.edge = {static_cast<Index>(keys[p] >> 32), static_cast<Index>(keys[p] & 0xffffffffu)};
    const EdgeVertices& ea = edges_[static_cast<size_t>(t.edge[0])];
    const EdgeVertices& eb = edges_[static_cast<size_t>(t.edge[1])];
    t.type = 2;
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 2; ++j) {
        if (ea[i] == eb[j]) {
          t.type = 1;
          t.e_p2[i][j] = -1;
          t.s[i][j] = 0;
          continue;
        }
        Index e = find_edge(ea[i], eb[j]);
        t.e_p2[i][j] = e;
        t.s[i][j] = edges_[static_cast<size_t>(e)][0] == ea[i] ? 1 : -1;
      }
    }
  }
}

Index MeshTopology::num_tseps_of_type(int type) const {
  return static_cast<Index>(std::count_if(tseps_.begin(), tseps_.end(),
                                          [type](const Tsep& t) { return t.type == type; }));
}

}  // namespace softbody
