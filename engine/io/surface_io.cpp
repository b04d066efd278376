// OBJ and STL export of the boundary surface (outward-oriented triangles).
#include "engine/io/io_util.h"
#include "engine/io/mesh_io.h"

namespace softbody {

void write_surface_obj(const std::string& path, const TetMesh& mesh) {
  std::ofstream out = open_for_writing(path);
  out << "# softbody boundary surface\n";
  // All vertices are written so that OBJ vertex i+1 is mesh vertex i; interior ones are unused.
  for (const Vec3& x : mesh.vertices) out << "v " << x[0] << ' ' << x[1] << ' ' << x[2] << '\n';
  for (const Triangle& f : boundary_triangles(mesh.tets, mesh.num_vertices())) {
    out << "f " << f[0] + 1 << ' ' << f[1] + 1 << ' ' << f[2] + 1 << '\n';
  }
  finish_writing(out, path);
}

void write_surface_stl(const std::string& path, const TetMesh& mesh, bool binary) {
  std::vector<Triangle> faces = boundary_triangles(mesh.tets, mesh.num_vertices());
  std::ofstream out = open_for_writing(path, binary);
  auto normal_of = [&](const Triangle& f) {
    const Vec3& a = mesh.vertices[static_cast<size_t>(f[0])];
    Vec3 n = (mesh.vertices[static_cast<size_t>(f[1])] - a)
                 .cross(mesh.vertices[static_cast<size_t>(f[2])] - a);
    double len = n.norm();
    return len > 0 ? Vec3(n / len) : Vec3::Zero();
  };
  if (binary) {
    std::string header(80, ' ');
    header.replace(0, 25, "softbody boundary surface");
    out.write(header.data(), 80);
    write_binary<std::uint32_t>(out, static_cast<std::uint32_t>(faces.size()));
    for (const Triangle& f : faces) {
      Vec3 n = normal_of(f);
      for (int k = 0; k < 3; ++k) write_binary<float>(out, static_cast<float>(n[k]));
      for (Index v : f) {
        for (int k = 0; k < 3; ++k)
          write_binary<float>(out, static_cast<float>(mesh.vertices[static_cast<size_t>(v)][k]));
      }
      write_binary<std::uint16_t>(out, 0);
    }
  } else {
    out << "solid softbody\n";
    for (const Triangle& f : faces) {
      Vec3 n = normal_of(f);
      out << "  facet normal " << n[0] << ' ' << n[1] << ' ' << n[2] << "\n    outer loop\n";
      for (Index v : f) {
        const Vec3& x = mesh.vertices[static_cast<size_t>(v)];
        out << "      vertex " << x[0] << ' ' << x[1] << ' ' << x[2] << '\n';
      }
      out << "    endloop\n  endfacet\n";
    }
    out << "endsolid softbody\n";
  }
  finish_writing(out, path);
}

}  // namespace softbody
