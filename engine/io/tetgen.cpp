// TetGen .node/.ele pairs. The first index in .node tells whether the files are 0- or 1-based;
// attributes and boundary markers are read and ignored.
#include "engine/io/io_util.h"
#include "engine/io/mesh_io.h"
#include "engine/io/text_scanner.h"

#include <filesystem>
#include <optional>

namespace softbody {

TetMesh parse_tetgen(const std::string& node_path, const std::string& ele_path,
                     std::vector<std::string>& notes) {
  const std::string node_content = read_file(node_path);
  const std::optional<std::string> ele_content =
      std::filesystem::exists(ele_path) ? std::optional(read_file(ele_path)) : std::nullopt;
  return parse_tetgen_content(node_path, node_content, ele_path, ele_content, notes);
}

TetMesh parse_tetgen_content(const std::string& node_path, std::string_view node_content,
                             const std::string& ele_path,
                             const std::optional<std::string>& ele_content,
                             std::vector<std::string>& notes) {
  TetMesh mesh;
  TextScanner nodes(node_path, node_content, '#');
  long long nv = nodes.read_count("the number of points");
  long long dim = nodes.read_int("the dimension");
  if (dim != 3) nodes.fail("dimension " + std::to_string(dim) + " is not supported (3 is)");
  long long num_attributes = nodes.read_int_in("the number of attributes", 0, 1024);
  long long has_marker = nodes.read_int_in("the boundary marker flag", 0, 1);
  long long base = 0;
  mesh.vertices.resize(static_cast<size_t>(nv));
  for (long long i = 0; i < nv; ++i) {
    long long index = nodes.read_int("a point index");
    if (i == 0) {
      if (index != 0 && index != 1)
        nodes.fail("the first point index must be 0 or 1, found " + std::to_string(index));
      base = index;
    } else if (index != base + i) {
      nodes.fail("point index " + std::to_string(index) + " out of sequence (expected " +
                 std::to_string(base + i) + ")");
    }
    Vec3& x = mesh.vertices[static_cast<size_t>(i)];
    for (int k = 0; k < 3; ++k) x[k] = nodes.read_double("a point coordinate");
    for (long long k = 0; k < num_attributes + has_marker; ++k)
      nodes.read_double("a point attribute or marker");
  }
  if (!ele_content) {
    throw MeshError(ele_path, "missing: a TetGen mesh needs both the .node and the .ele file");
  }
  TextScanner eles(ele_path, *ele_content, '#');
  long long nt = eles.read_count("the number of tetrahedra");
  long long per_tet = eles.read_int("the number of nodes per tetrahedron");
  if (per_tet != 4) {
    eles.fail(std::to_string(per_tet) + "-node tetrahedra are not supported (4-node are)");
  }
  long long region_attribute = eles.read_int_in("the region attribute flag", 0, 1);
  mesh.tets.resize(static_cast<size_t>(nt));
  for (long long i = 0; i < nt; ++i) {
    eles.read_int("a tetrahedron index");
    for (auto& v : mesh.tets[static_cast<size_t>(i)]) {
      v = static_cast<Index>(eles.read_int_in("a tetrahedron corner", base, base + nv - 1) - base);
    }
    if (region_attribute) eles.read_double("a region attribute");
  }
  notes.push_back(std::string("TetGen indices are ") + (base == 0 ? "0" : "1") + "-based");
  return mesh;
}

void write_tetgen(const std::string& path, const TetMesh& mesh) {
  std::filesystem::path base(path);
  std::string stem = (base.parent_path() / base.stem()).string();
  std::ofstream node = open_for_writing(stem + ".node");
  node << mesh.vertices.size() << " 3 0 0\n";
  for (size_t i = 0; i < mesh.vertices.size(); ++i) {
    const Vec3& x = mesh.vertices[i];
    node << i << ' ' << x[0] << ' ' << x[1] << ' ' << x[2] << '\n';
  }
  finish_writing(node, stem + ".node");
  std::ofstream ele = open_for_writing(stem + ".ele");
  ele << mesh.tets.size() << " 4 0\n";
  for (size_t i = 0; i < mesh.tets.size(); ++i) {
    const Tet& t = mesh.tets[i];
    ele << i << ' ' << t[0] << ' ' << t[1] << ' ' << t[2] << ' ' << t[3] << '\n';
  }
  finish_writing(ele, stem + ".ele");
}

}  // namespace softbody
