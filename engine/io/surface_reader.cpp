#include "engine/io/surface_reader.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <vector>

#include "engine/io/text_scanner.h"

namespace softbody {
namespace {

// The whitespace-separated tokens of one line.
std::vector<std::string_view> split(std::string_view line) {
  std::vector<std::string_view> tokens;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    const size_t start = i;
    while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i > start) tokens.push_back(line.substr(start, i - start));
  }
  return tokens;
}

bool parse_number(std::string_view token, double& value) {
  if (!token.empty() && token[0] == '+') token.remove_prefix(1);
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  return ec == std::errc() && end == token.data() + token.size() && std::isfinite(value);
}

// Merges vertices that coincide exactly (STL lists each corner once per face).
class VertexWelder {
 public:
  explicit VertexWelder(SurfaceMesh& mesh) : mesh_(mesh) {}
  Index add(const Vec3& x) {
    const auto [it, inserted] =
        index_.try_emplace({x[0], x[1], x[2]}, static_cast<Index>(mesh_.vertices.size()));
    if (inserted) mesh_.vertices.push_back(x);
    return it->second;
  }

 private:
  SurfaceMesh& mesh_;
  std::map<std::array<double, 3>, Index> index_;
};

SurfaceMesh parse_ascii_stl(const std::string& path, std::string_view content) {
  SurfaceMesh mesh;
  VertexWelder weld(mesh);
  TextScanner in(path, content);
  in.expect("solid");
  in.rest_of_line();  // the solid's name
  mesh.vertex_numbers_from_file = false;
  while (true) {
    const std::string_view keyword = in.next("'facet' or 'endsolid'");
    const long line = in.line();  // the facet's
    if (keyword == "endsolid") {
      in.rest_of_line();  // the solid's name again
      // Exporters write one solid per part into one file: all of them are the surface.
      if (in.at_end()) break;
      in.expect("solid");
      in.rest_of_line();
      continue;
    }
    if (keyword != "facet")
      in.fail("expected 'facet' or 'endsolid', found '" + std::string(keyword) + "'");
    in.expect("normal");
    for (int k = 0; k < 3; ++k) in.read_double("a facet normal component");
    in.expect("outer");
    in.expect("loop");
    Triangle tri;
    for (Index& v : tri) {
      in.expect("vertex");
      Vec3 x;
      for (int k = 0; k < 3; ++k) x[k] = in.read_double("a vertex coordinate");
      if (!x.allFinite()) in.fail("a vertex coordinate is not finite");
      v = weld.add(x);
    }
    in.expect("endloop");
    in.expect("endfacet");
    mesh.triangles.push_back(tri);
    mesh.face_lines.push_back(line);
  }
  return mesh;
}

SurfaceMesh parse_binary_stl(const std::string& path, std::string_view content) {
  BinaryReader in(path, content, 80, false);
  const auto count = in.read<std::uint32_t>("the number of triangles");
  if ((content.size() - 84) / 50 < count)
    in.fail("the header announces " + std::to_string(count) + " triangles but the file holds " +
            std::to_string((content.size() - 84) / 50));
  SurfaceMesh mesh;
  mesh.vertex_numbers_from_file = false;
  mesh.faces_by_line = false;
  VertexWelder weld(mesh);
  mesh.triangles.reserve(count);
  for (std::uint32_t t = 0; t < count; ++t) {
    for (int k = 0; k < 3; ++k) in.read<float>("a facet normal component");
    Triangle tri;
    for (Index& v : tri) {
      Vec3 x;
      for (int k = 0; k < 3; ++k) x[k] = in.read<float>("a vertex coordinate");
      if (!x.allFinite())
        in.fail("triangle " + std::to_string(t + 1) + ": a vertex coordinate is not finite");
      v = weld.add(x);
    }
    in.read<std::uint16_t>("the attribute byte count");
    mesh.triangles.push_back(tri);
    mesh.face_lines.push_back(static_cast<long>(t) + 1);
  }
  return mesh;
}

// Whether the bytes after an 80-byte header include ones no ASCII STL holds (NUL and control
// characters other than whitespace): a binary STL whose header begins with "solid", as some
// exporters write, whose size is wrong (truncated) is then named as a binary file, not reported
// as a malformed ASCII one.
bool holds_binary_bytes(std::string_view content) {
  if (content.size() <= 80) return false;
  return std::any_of(content.begin() + 80, content.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte < 0x20 && byte != '\n' && byte != '\r' && byte != '\t' && byte != '\f' &&
           byte != '\v';
  });
}

}  // namespace

SurfaceMesh parse_surface_obj(const std::string& path, std::string_view content) {
  SurfaceMesh mesh;
  TextScanner in(path, content, '#');
  while (!in.at_end()) {
    const long line = in.line();
    const std::string_view keyword = in.next("a record");
    // A comment may also end a record's line ("f 1 2 3 # lid"): its fields stop there.
    std::string_view rest = in.rest_of_line();
    rest = rest.substr(0, rest.find('#'));
    const std::vector<std::string_view> fields = split(rest);
    const auto fail = [&](const std::string& problem) { in.fail_at_line(line, problem); };
    if (keyword == "v") {
      // x y z, then an optional w or a colour (ignored).
      if (fields.size() < 3)
        fail("a vertex needs 3 coordinates, found " + std::to_string(fields.size()));
      Vec3 x;
      for (int k = 0; k < 3; ++k)
        if (!parse_number(fields[static_cast<size_t>(k)], x[k]))
          fail("expected a vertex coordinate (a finite number), found '" +
               std::string(fields[static_cast<size_t>(k)]) + "'");
      mesh.vertices.push_back(x);
    } else if (keyword == "f") {
      if (fields.size() < 3)
        fail("a face needs at least 3 vertices, found " + std::to_string(fields.size()));
      std::vector<Index> corners;
      for (std::string_view field : fields) {
        // v, v/vt, v//vn or v/vt/vn: only v matters; negative counts back from the last vertex.
        const std::string_view number = field.substr(0, field.find('/'));
        long long index = 0;
        const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), index);
        const auto count = static_cast<long long>(mesh.vertices.size());
        if (ec != std::errc() || end != number.data() + number.size() || index == 0)
          fail("expected a face's vertex number, found '" + std::string(field) + "'");
        if (index < 0) index += count + 1;
        if (index < 1 || index > count)
          fail("a face names vertex " + std::string(number) + " but " + std::to_string(count) +
               " are defined before it");
        corners.push_back(static_cast<Index>(index - 1));
      }
      for (size_t k = 1; k + 1 < corners.size(); ++k) {
        mesh.triangles.push_back({corners[0], corners[k], corners[k + 1]});
        mesh.face_lines.push_back(line);
      }
    }
    // vt, vn, vp, g, o, s, usemtl, mtllib, l, p, ...: not shape, ignored.
  }
  if (mesh.triangles.empty()) throw MeshError(path, "no faces ('f' records): not a surface");
  return mesh;
}

SurfaceMesh parse_surface_stl(const std::string& path, std::string_view content) {
  // Binary files may also begin with "solid"; their size (84 + 50 per triangle) tells them apart.
  if (content.size() >= 84) {
    std::uint32_t count = 0;
    std::memcpy(&count, content.data() + 80, sizeof count);
    if (content.size() == 84 + 50 * static_cast<std::uint64_t>(count))
      return parse_binary_stl(path, content);
  }
  const size_t first = content.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && content.substr(first, 5) == "solid" &&
      !holds_binary_bytes(content))
    return parse_ascii_stl(path, content);
  if (content.size() < 84) throw MeshError(path, "too short for a binary STL (84-byte header)");
  return parse_binary_stl(path, content);  // its size is wrong: the reader says how
}

SurfaceMesh read_surface_mesh(const std::string& path) {
  std::string extension = std::filesystem::path(path).extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (extension == ".obj") return parse_surface_obj(path, read_file(path));
  if (extension == ".stl") return parse_surface_stl(path, read_file(path));
  throw MeshError(path, "unknown surface format '" + extension + "' (supported: .obj, .stl)");
}

}  // namespace softbody
