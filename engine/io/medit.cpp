// MEDIT .mesh (ASCII, as written by libigl, TetGen, MMG, CGAL). Indices are 1-based. Vertices and
// Tetrahedra are read; the other known sections are skipped (their arity is fixed by the format).
#include <map>

#include "engine/io/io_util.h"
#include "engine/io/mesh_io.h"
#include "engine/io/text_scanner.h"

namespace softbody {
namespace {

// Number of integers/reals per entry of the sections we skip.
const std::map<std::string_view, int>& skipped_section_arity() {
  static const std::map<std::string_view, int> arity = {{"Edges", 3},
                                                        {"Triangles", 4},
                                                        {"Quadrilaterals", 5},
                                                        {"Hexahedra", 9},
                                                        {"Prisms", 7},
                                                        {"Pyramids", 6},
                                                        {"Corners", 1},
                                                        {"Ridges", 1},
                                                        {"RequiredVertices", 1},
                                                        {"RequiredEdges", 1},
                                                        {"RequiredTriangles", 1},
                                                        {"Normals", 3},
                                                        {"Tangents", 3},
                                                        {"NormalAtVertices", 2},
                                                        {"NormalAtTriangleVertices", 3},
                                                        {"TangentAtEdgeVertices", 3}};
  return arity;
}

}  // namespace

TetMesh parse_medit(const std::string& path, std::string_view content,
                    std::vector<std::string>& notes) {
  TextScanner in(path, content, '#');
  TetMesh mesh;
  in.expect("MeshVersionFormatted");
  in.read_int_in("the MEDIT version", 1, 4);
  bool have_vertices = false;
  while (!in.at_end()) {
    std::string_view keyword = in.next("a section keyword");
    if (keyword == "End") break;
    if (keyword == "Dimension") {
      long long dim = in.read_int("the dimension");
      if (dim != 3) in.fail("dimension " + std::to_string(dim) + " is not supported (3 is)");
    } else if (keyword == "Vertices") {
      long long n = in.read_count("the number of vertices");
      mesh.vertices.resize(static_cast<size_t>(n));
      for (auto& x : mesh.vertices) {
        for (int k = 0; k < 3; ++k) x[k] = in.read_double("a vertex coordinate");
        in.read_int("a vertex reference number");
      }
      have_vertices = true;
    } else if (keyword == "Tetrahedra") {
      if (!have_vertices) in.fail("Tetrahedra appear before Vertices");
      long long n = in.read_count("the number of tetrahedra");
      mesh.tets.resize(static_cast<size_t>(n));
      for (auto& t : mesh.tets) {
        for (auto& v : t)
          v = static_cast<Index>(
              in.read_int_in("a tetrahedron vertex index", 1, mesh.num_vertices()) - 1);
        in.read_int("a tetrahedron reference number");
      }
    } else if (auto it = skipped_section_arity().find(keyword);
               it != skipped_section_arity().end()) {
      long long n = in.read_count("the number of entries");
      for (long long i = 0; i < n * it->second; ++i) in.read_double("a section value");
      if (n > 0) notes.push_back("ignored " + std::to_string(n) + " " + std::string(keyword));
    } else {
      in.fail("unknown MEDIT keyword '" + std::string(keyword) + "'");
    }
  }
  return mesh;
}

void write_medit(const std::string& path, const TetMesh& mesh) {
  std::ofstream out = open_for_writing(path);
  out << "MeshVersionFormatted 2\nDimension 3\nVertices\n" << mesh.vertices.size() << '\n';
  for (const Vec3& x : mesh.vertices) out << x[0] << ' ' << x[1] << ' ' << x[2] << " 0\n";
  out << "Tetrahedra\n" << mesh.tets.size() << '\n';
  for (const Tet& t : mesh.tets) {
    out << t[0] + 1 << ' ' << t[1] + 1 << ' ' << t[2] + 1 << ' ' << t[3] + 1 << " 1\n";
  }
  std::vector<Triangle> surface = boundary_triangles(mesh.tets, mesh.num_vertices());
  out << "Triangles\n" << surface.size() << '\n';
  for (const Triangle& f : surface) out << f[0] + 1 << ' ' << f[1] + 1 << ' ' << f[2] + 1 << " 1\n";
  out << "End\n";
  finish_writing(out, path);
}

}  // namespace softbody
