#include "engine/mesh/reorder.h"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/cuthill_mckee_ordering.hpp>
#include <iterator>
#include <numeric>
#include <stdexcept>

#include "engine/mesh/topology.h"

namespace softbody {

MeshPermutation reorder_for_locality(TetMesh& mesh) {
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
  const auto nv = static_cast<size_t>(mesh.num_vertices());
  Graph graph(nv);
  const MeshTopology topology(mesh);
  for (const EdgeVertices& e : topology.edges())
    boost::add_edge(static_cast<size_t>(e[0]), static_cast<size_t>(e[1]), graph);
  std::vector<Graph::vertex_descriptor> order;
  order.reserve(nv);
  boost::cuthill_mckee_ordering(graph, std::back_inserter(order));
  std::reverse(order.begin(), order.end());  // reverse Cuthill-McKee
  if (order.size() != nv) throw std::logic_error("reorder_for_locality: ordering lost vertices");

  MeshPermutation perm;
  perm.old_of_new_vertex.resize(nv);
  perm.new_of_old_vertex.resize(nv);
  for (size_t i = 0; i < nv; ++i) {
    perm.old_of_new_vertex[i] = static_cast<Index>(order[i]);
    perm.new_of_old_vertex[order[i]] = static_cast<Index>(i);
  }
  mesh.vertices = permute_vertices(mesh.vertices, perm);
  for (Tet& t : mesh.tets) {
    for (Index& v : t) v = perm.new_of_old_vertex[static_cast<size_t>(v)];
  }
  for (auto& [name, set] : mesh.vertex_sets) {
    for (Index& v : set) v = perm.new_of_old_vertex[static_cast<size_t>(v)];
    std::sort(set.begin(), set.end());
  }
  perm.old_of_new_tet.resize(mesh.tets.size());
  std::iota(perm.old_of_new_tet.begin(), perm.old_of_new_tet.end(), 0);
  auto key = [&](Index t) {
    Tet s = mesh.tets[static_cast<size_t>(t)];
    std::sort(s.begin(), s.end());
    return s;
  };
  std::stable_sort(perm.old_of_new_tet.begin(), perm.old_of_new_tet.end(),
                   [&](Index a, Index b) { return key(a) < key(b); });
  std::vector<Tet> sorted(mesh.tets.size());
  for (size_t i = 0; i < sorted.size(); ++i)
    sorted[i] = mesh.tets[static_cast<size_t>(perm.old_of_new_tet[i])];
  mesh.tets = std::move(sorted);
  return perm;
}

Vec3Array permute_vertices(const Vec3Array& old_positions, const MeshPermutation& permutation) {
  Vec3Array out(old_positions.size());
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = old_positions[static_cast<size_t>(permutation.old_of_new_vertex[i])];
  return out;
}

}  // namespace softbody
