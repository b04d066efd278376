#include "engine/io/mesh_io.h"

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "engine/io/mesh_error.h"
#include "engine/io/text_scanner.h"

namespace softbody {
namespace {

std::string lowercase_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return ext;
}

// What the first bytes of a file say it is, for confirming the extension.
std::string_view sniff_format(std::string_view content) {
  size_t start = content.find_first_not_of(" \t\r\n");
  std::string_view head = start == std::string_view::npos ? "" : content.substr(start, 64);
  if (head.starts_with("$MeshFormat")) return "Gmsh MSH";
  if (head.starts_with("MeshVersionFormatted")) return "MEDIT .mesh";
  if (head.starts_with("# vtk DataFile")) return "VTK legacy";
  if (head.starts_with("<?xml") || head.starts_with("<VTKFile")) return "VTK XML";
  return "";
}

void confirm_content(const std::string& path, std::string_view content, MeshFormat expected) {
  std::string_view found = sniff_format(content);
  std::string_view wanted;
  switch (expected) {
    case MeshFormat::kGmsh:
      wanted = "Gmsh MSH";
      break;
    case MeshFormat::kMedit:
      wanted = "MEDIT .mesh";
      break;
    case MeshFormat::kVtkLegacy:
      wanted = "VTK legacy";
      break;
    case MeshFormat::kVtu:
      wanted = "VTK XML";
      break;
    default:
      return;
  }
  // MEDIT files may start with comments, so only a positive contradiction is an error.
  if (found != wanted && (!found.empty() || expected != MeshFormat::kMedit)) {
    std::string what = found.empty() ? "does not look like any supported mesh format"
                                     : "looks like " + std::string(found);
    throw MeshError(path, "the extension says " + std::string(format_name(expected)) +
                              " but the content " + what);
  }
}

}  // namespace

std::string_view format_name(MeshFormat format) {
  switch (format) {
    case MeshFormat::kGmsh:
      return "Gmsh MSH";
    case MeshFormat::kMedit:
      return "MEDIT .mesh";
    case MeshFormat::kTetGen:
      return "TetGen .node/.ele";
    case MeshFormat::kVtkLegacy:
      return "VTK legacy";
    case MeshFormat::kVtu:
      return "VTK XML";
    case MeshFormat::kObj:
      return "Wavefront OBJ";
    case MeshFormat::kStl:
      return "STL";
  }
  return "unknown";
}

MeshFormat format_from_extension(const std::string& path) {
  std::string ext = lowercase_extension(path);
  if (ext == ".msh") return MeshFormat::kGmsh;
  if (ext == ".mesh") return MeshFormat::kMedit;
  if (ext == ".node" || ext == ".ele") return MeshFormat::kTetGen;
  if (ext == ".vtk") return MeshFormat::kVtkLegacy;
  if (ext == ".vtu") return MeshFormat::kVtu;
  if (ext == ".obj") return MeshFormat::kObj;
  if (ext == ".stl") return MeshFormat::kStl;
  throw MeshError(path,
                  "unknown mesh file extension '" + ext +
                      "' (supported: .msh .mesh .node/.ele .vtk .vtu; write-only: .obj .stl)");
}

ParsedMesh parse_mesh_file(const std::string& path) {
  MeshFormat format = format_from_extension(path);
  if (format == MeshFormat::kTetGen) {
    std::filesystem::path base(path);
    std::string stem = (base.parent_path() / base.stem()).string();
    ParsedMesh result{{}, format, {}};
    result.mesh = parse_tetgen(stem + ".node", stem + ".ele", result.notes);
    return result;
  }
  if (format == MeshFormat::kObj || format == MeshFormat::kStl) {
    return parse_mesh_content(format, path, {});  // throws the surface-only error
  }
  return parse_mesh_content(format, path, read_file(path));
}

ParsedMesh parse_mesh_content(MeshFormat format, const std::string& name, std::string_view content,
                              std::string_view ele_content) {
  ParsedMesh result{{}, format, {}};
  if (format == MeshFormat::kTetGen) {
    const std::optional<std::string> ele =
        ele_content.empty() ? std::nullopt : std::optional(std::string(ele_content));
    // `name` may be the .node file's name or the pair's stem ("bunny.node" or "bunny"), never
    // "bunny.node.node".
    std::string stem = name;
    for (const char* ext : {".node", ".ele"})
      if (stem.size() > std::strlen(ext) && stem.ends_with(ext))
        stem.resize(stem.size() - std::strlen(ext));
    result.mesh = parse_tetgen_content(stem + ".node", content, stem + ".ele", ele, result.notes);
    return result;
  }
  if (format == MeshFormat::kObj || format == MeshFormat::kStl) {
    throw MeshError(name,
                    std::string(format_name(format)) +
                        " holds only a surface; a tetrahedral mesh is needed (write-only format)");
  }
  confirm_content(name, content, format);
  switch (format) {
    case MeshFormat::kGmsh:
      result.mesh = parse_gmsh(name, content, result.notes);
      break;
    case MeshFormat::kMedit:
      result.mesh = parse_medit(name, content, result.notes);
      break;
    case MeshFormat::kVtkLegacy:
      result.mesh = parse_vtk_legacy(name, content, result.notes);
      break;
    case MeshFormat::kVtu:
      result.mesh = parse_vtu(name, content, result.notes);
      break;
    default:
      break;
  }
  if (result.mesh.tets.empty()) throw MeshError(name, "the file contains no tetrahedra");
  return result;
}

void write_mesh(const std::string& path, const TetMesh& mesh, const WriteOptions& options) {
  switch (format_from_extension(path)) {
    case MeshFormat::kGmsh:
      write_gmsh(path, mesh, options.msh_version, options.binary);
      break;
    case MeshFormat::kMedit:
      write_medit(path, mesh);
      break;
    case MeshFormat::kTetGen:
      write_tetgen(path, mesh);
      break;
    case MeshFormat::kVtkLegacy:
      write_vtk_legacy(path, mesh, options.binary);
      break;
    case MeshFormat::kVtu:
      write_vtu(path, mesh, {}, options.binary);
      break;
    case MeshFormat::kObj:
      write_surface_obj(path, mesh);
      break;
    case MeshFormat::kStl:
      write_surface_stl(path, mesh, options.binary);
      break;
  }
}

}  // namespace softbody
