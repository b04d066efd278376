// Rest-state validation of a tetrahedral mesh and the opt-in repairs, and the one entry point that
// loads a mesh file ready for simulation.
#pragma once

#include <string>
#include <vector>

#include "engine/io/mesh_io.h"
#include "engine/mesh/tet_mesh.h"

namespace softbody {

struct ValidationOptions {
  // Reorient inverted rest tetrahedra and drop unreferenced vertices instead of failing.
  bool repair = false;
  // A tetrahedron is degenerate when |6V| <= tolerance * L^3 (L: its longest edge). The default
  // only catches volumes that are zero up to round-off: raw meshes with slivers still load.
  double degenerate_tolerance = 1e-12;
};

// Checks non-finite coordinates, index ranges, repeated corners, degenerate and inverted
// tetrahedra, duplicate tetrahedra, faces shared by more than two tetrahedra and unreferenced
// vertices. Throws MeshError naming `source` and the element. A file whose tetrahedra are *all*
// negatively oriented uses the opposite orientation convention: they are flipped and a note is
// added. With options.repair, fixable problems are fixed and described in `repairs`.
void validate_rest_mesh(TetMesh& mesh, const std::string& source, const ValidationOptions& options,
                        std::vector<std::string>& notes, std::vector<std::string>& repairs);

struct LoadedMesh {
  TetMesh mesh;
  MeshFormat format;
  std::vector<std::string> notes;    // what the reader skipped or interpreted
  std::vector<std::string> repairs;  // what repair mode changed
};

// Parses and validates a mesh file.
LoadedMesh load_mesh(const std::string& path, const ValidationOptions& options = {});
// Parses and validates a mesh held in memory (see parse_mesh_content).
LoadedMesh load_mesh_content(MeshFormat format, const std::string& name, std::string_view content,
                             std::string_view ele_content, const ValidationOptions& options = {});

}  // namespace softbody
