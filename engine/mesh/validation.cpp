#include "engine/mesh/validation.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "engine/io/mesh_error.h"

namespace softbody {
namespace {

std::string describe_tet(const TetMesh& mesh, size_t t) {
  const Tet& tet = mesh.tets[t];
  std::ostringstream s;
  s << "tetrahedron " << t << " (vertices " << tet[0] << ' ' << tet[1] << ' ' << tet[2] << ' '
    << tet[3] << ")";
  return s.str();
}

[[noreturn]] void fail_tet(const TetMesh& mesh, const std::string& source, size_t t,
                           const std::string& problem) {
  throw MeshError(source, describe_tet(mesh, t) + ": " + problem,
                  {.element = static_cast<long>(t)});
}

double longest_edge(const TetMesh& mesh, const Tet& t) {
  double longest = 0;
  for (int i = 0; i < 4; ++i) {
    for (int j = i + 1; j < 4; ++j) {
      longest = std::max(longest, (mesh.vertices[static_cast<size_t>(t[static_cast<size_t>(i)])] -
                                   mesh.vertices[static_cast<size_t>(t[static_cast<size_t>(j)])])
                                      .norm());
    }
  }
  return longest;
}

void check_vertices_and_indices(const TetMesh& mesh, const std::string& source) {
  for (size_t v = 0; v < mesh.vertices.size(); ++v) {
    if (!mesh.vertices[v].allFinite()) {
      std::ostringstream s;
      s << "vertex " << v << " has a non-finite coordinate (" << mesh.vertices[v].transpose()
        << ")";
      throw MeshError(source, s.str(), {.element = static_cast<long>(v)});
    }
  }
  for (size_t t = 0; t < mesh.tets.size(); ++t) {
    const Tet& tet = mesh.tets[t];
    for (int i = 0; i < 4; ++i) {
      if (tet[static_cast<size_t>(i)] < 0 || tet[static_cast<size_t>(i)] >= mesh.num_vertices()) {
        fail_tet(mesh, source, t,
                 "vertex index " + std::to_string(tet[static_cast<size_t>(i)]) +
                     " is out of range (the mesh has " + std::to_string(mesh.num_vertices()) +
                     " vertices)");
      }
      for (int j = 0; j < i; ++j) {
        if (tet[static_cast<size_t>(i)] == tet[static_cast<size_t>(j)]) {
          fail_tet(
              mesh, source, t,
              "uses vertex " + std::to_string(tet[static_cast<size_t>(i)]) + " twice (degenerate)");
        }
      }
    }
  }
}

void check_volumes_and_orientation(TetMesh& mesh, const std::string& source,
                                   const ValidationOptions& options,
                                   std::vector<std::string>& notes,
                                   std::vector<std::string>& repairs) {
  std::vector<size_t> negative;
  for (size_t t = 0; t < mesh.tets.size(); ++t) {
    double c = six_signed_volume(mesh.vertices, mesh.tets[t]);
    double l = longest_edge(mesh, mesh.tets[t]);
    if (!(std::abs(c) > options.degenerate_tolerance * l * l * l)) {
      std::ostringstream s;
      s << "zero volume (6V = " << c << ", longest edge " << l << "): degenerate";
      fail_tet(mesh, source, t, s.str());
    }
    if (c < 0) negative.push_back(t);
  }
  if (negative.empty()) return;
  if (negative.size() == mesh.tets.size()) {
    for (Tet& t : mesh.tets) std::swap(t[2], t[3]);
    notes.push_back(
        "all tetrahedra were negatively oriented (the file's convention); reoriented all");
    return;
  }
  if (!options.repair) {
    std::ostringstream s;
    s << "negative volume (inverted in the rest state; " << negative.size() << " of "
      << mesh.tets.size() << " tetrahedra are; repair mode reorients them)";
    fail_tet(mesh, source, negative.front(), s.str());
  }
  for (size_t t : negative) std::swap(mesh.tets[t][2], mesh.tets[t][3]);
  repairs.push_back("reoriented " + std::to_string(negative.size()) +
                    " inverted tetrahedra (first: " + std::to_string(negative.front()) + ")");
}

void check_duplicates_and_faces(const TetMesh& mesh, const std::string& source) {
  std::vector<std::pair<Tet, size_t>> sorted(mesh.tets.size());
  for (size_t t = 0; t < mesh.tets.size(); ++t) {
    sorted[t] = {mesh.tets[t], t};
    std::sort(sorted[t].first.begin(), sorted[t].first.end());
  }
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 1; i < sorted.size(); ++i) {
    if (sorted[i].first == sorted[i - 1].first) {
      size_t a = std::min(sorted[i].second, sorted[i - 1].second),
             b = std::max(sorted[i].second, sorted[i - 1].second);
      fail_tet(mesh, source, b, "duplicates tetrahedron " + std::to_string(a));
    }
  }
  std::vector<std::pair<Triangle, size_t>> faces;
  faces.reserve(mesh.tets.size() * 4);
  for (const auto& [tet, t] : sorted) {
    faces.push_back({{tet[1], tet[2], tet[3]}, t});
    faces.push_back({{tet[0], tet[2], tet[3]}, t});
    faces.push_back({{tet[0], tet[1], tet[3]}, t});
    faces.push_back({{tet[0], tet[1], tet[2]}, t});
  }
  std::sort(faces.begin(), faces.end());
  for (size_t i = 2; i < faces.size(); ++i) {
    if (faces[i].first == faces[i - 2].first) {
      const Triangle& f = faces[i].first;
      fail_tet(mesh, source, faces[i].second,
               "face (" + std::to_string(f[0]) + " " + std::to_string(f[1]) + " " +
                   std::to_string(f[2]) +
                   ") is shared by more than two tetrahedra (overlapping elements)");
    }
  }
}

void check_unreferenced(TetMesh& mesh, const std::string& source, const ValidationOptions& options,
                        std::vector<std::string>& repairs) {
  std::vector<Index> new_index(mesh.vertices.size(), -1);
  for (const Tet& t : mesh.tets) {
    for (Index v : t) new_index[static_cast<size_t>(v)] = 0;
  }
  auto unused = static_cast<size_t>(std::count(new_index.begin(), new_index.end(), -1));
  if (unused == 0) return;
  size_t first =
      static_cast<size_t>(std::find(new_index.begin(), new_index.end(), -1) - new_index.begin());
  if (!options.repair) {
    throw MeshError(source,
                    "vertex " + std::to_string(first) + " is not used by any tetrahedron (" +
                        std::to_string(unused) + " unreferenced vertices; repair mode drops them)",
                    {.element = static_cast<long>(first)});
  }
  Index next = 0;
  Vec3Array kept;
  for (size_t v = 0; v < new_index.size(); ++v) {
    if (new_index[v] == 0) {
      new_index[v] = next++;
      kept.push_back(mesh.vertices[v]);
    }
  }
  mesh.vertices = std::move(kept);
  for (Tet& t : mesh.tets) {
    for (Index& v : t) v = new_index[static_cast<size_t>(v)];
  }
  for (auto& [name, set] : mesh.vertex_sets) {
    std::vector<Index> remapped;
    for (Index v : set) {
      if (new_index[static_cast<size_t>(v)] >= 0)
        remapped.push_back(new_index[static_cast<size_t>(v)]);
    }
    set = std::move(remapped);
  }
  repairs.push_back("dropped " + std::to_string(unused) +
                    " unreferenced vertices (first: " + std::to_string(first) + ")");
}

}  // namespace

void validate_rest_mesh(TetMesh& mesh, const std::string& source, const ValidationOptions& options,
                        std::vector<std::string>& notes, std::vector<std::string>& repairs) {
  if (mesh.tets.empty()) throw MeshError(source, "the mesh contains no tetrahedra");
  check_vertices_and_indices(mesh, source);
  check_volumes_and_orientation(mesh, source, options, notes, repairs);
  check_duplicates_and_faces(mesh, source);
  check_unreferenced(mesh, source, options, repairs);
}

LoadedMesh load_mesh(const std::string& path, const ValidationOptions& options) {
  ParsedMesh parsed = parse_mesh_file(path);
  LoadedMesh loaded{std::move(parsed.mesh), parsed.format, std::move(parsed.notes), {}};
  validate_rest_mesh(loaded.mesh, path, options, loaded.notes, loaded.repairs);
  return loaded;
}

LoadedMesh load_mesh_content(MeshFormat format, const std::string& name, std::string_view content,
                             std::string_view ele_content, const ValidationOptions& options) {
  ParsedMesh parsed = parse_mesh_content(format, name, content, ele_content);
  LoadedMesh loaded{std::move(parsed.mesh), parsed.format, std::move(parsed.notes), {}};
  validate_rest_mesh(loaded.mesh, name, options, loaded.notes, loaded.repairs);
  return loaded;
}

}  // namespace softbody
