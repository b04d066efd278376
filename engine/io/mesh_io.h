// Reading and writing tetrahedral meshes. The format is chosen by the file extension and confirmed
// by the content; every failure is a MeshError naming the file, line and problem.
//
// Supported (read and write): Gmsh MSH 2.2 and 4.1 (ASCII and binary), MEDIT .mesh, TetGen
// .node/.ele, VTK legacy .vtk (UNSTRUCTURED_GRID, ASCII and binary), VTK XML .vtu (ASCII and
// inline base64). Write only: OBJ and STL of the boundary surface.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/mesh/tet_mesh.h"

namespace softbody {

enum class MeshFormat { kGmsh, kMedit, kTetGen, kVtkLegacy, kVtu, kObj, kStl };

std::string_view format_name(MeshFormat format);
// The format implied by a path's extension; MeshError for an unknown extension.
MeshFormat format_from_extension(const std::string& path);

struct ParsedMesh {
  TetMesh mesh;
  MeshFormat format;
  std::vector<std::string>
      notes;  // what the reader skipped or interpreted, e.g. "ignored 120 triangles"
};

// Parses a file without any geometric validation (used for deformed configurations, which may
// legitimately contain inverted elements). Index ranges are checked.
ParsedMesh parse_mesh_file(const std::string& path);
// The same for content already in memory (an uploaded mesh): `name` stands for the file in errors;
// a TetGen mesh needs both the .node `content` and the .ele `ele_content`.
ParsedMesh parse_mesh_content(MeshFormat format, const std::string& name, std::string_view content,
                              std::string_view ele_content = {});

struct WriteOptions {
  bool binary = false;   // MSH, VTK legacy, STL: binary encoding; VTU: inline base64
  int msh_version = 41;  // 22 or 41
};

// A named field written to VTU files: `components` values per point (or per cell).
struct Field {
  std::string name;
  int components = 1;
  std::vector<double> values;
};

struct VtuData {
  std::vector<Field> point_data;
  std::vector<Field> cell_data;
};

// Writes `mesh` (its vertices are written as they are: rest or deformed positions).
void write_mesh(const std::string& path, const TetMesh& mesh, const WriteOptions& options = {});
void write_vtu(const std::string& path, const TetMesh& mesh, const VtuData& data, bool base64);

// A configuration for visualisation: the mesh at `positions`, with point data "displacement"
// (positions - rest) and, where given, "velocity", and cell data "strain_energy_density".
void write_state_vtu(const std::string& path, const TetMesh& rest, const Vec3Array& positions,
                     const Vec3Array* velocities, const std::vector<double>* energy_density,
                     bool base64 = true);

// Per-format parsers, exposed for tests. `content` is the whole file.
TetMesh parse_gmsh(const std::string& path, std::string_view content,
                   std::vector<std::string>& notes);
TetMesh parse_medit(const std::string& path, std::string_view content,
                    std::vector<std::string>& notes);
TetMesh parse_tetgen(const std::string& node_path, const std::string& ele_path,
                     std::vector<std::string>& notes);
TetMesh parse_vtk_legacy(const std::string& path, std::string_view content,
                         std::vector<std::string>& notes);
TetMesh parse_vtu(const std::string& path, std::string_view content,
                  std::vector<std::string>& notes);

// `ele_content` is empty when the .ele file is missing (an error once the nodes have been read).
TetMesh parse_tetgen_content(const std::string& node_path, std::string_view node_content,
                             const std::string& ele_path,
                             const std::optional<std::string>& ele_content,
                             std::vector<std::string>& notes);

void write_gmsh(const std::string& path, const TetMesh& mesh, int version, bool binary);
void write_medit(const std::string& path, const TetMesh& mesh);
void write_tetgen(const std::string& path, const TetMesh& mesh);
void write_vtk_legacy(const std::string& path, const TetMesh& mesh, bool binary);
void write_surface_obj(const std::string& path, const TetMesh& mesh);
void write_surface_stl(const std::string& path, const TetMesh& mesh, bool binary);

}  // namespace softbody
