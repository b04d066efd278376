// softbody-sim convert IN OUT: converts between mesh formats (validated on the way).
#include <iostream>

#include "engine/cli/commands.h"
#include "engine/mesh/validation.h"

namespace softbody::cli {

void add_convert_command(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("convert", "convert a mesh to another format (by the output extension)");
  struct Args {
    std::string in, out;
    bool binary = false, repair = false;
    int msh_version = 41;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("IN", args->in, "input mesh")->required();
  cmd->add_option("OUT", args->out, "output mesh (.msh .mesh .node .vtk .vtu .obj .stl)")
      ->required();
  cmd->add_flag("--binary", args->binary, "binary encoding (MSH, VTK, STL; base64 for VTU)");
  cmd->add_option("--msh-version", args->msh_version, "MSH version: 22 or 41")
      ->check(CLI::IsMember({22, 41}))
      ->capture_default_str();
  cmd->add_flag("--repair", args->repair,
                "reorient inverted tetrahedra and drop unreferenced vertices");
  cmd->callback([args] {
    LoadedMesh loaded = load_mesh(args->in, {.repair = args->repair});
    for (const std::string& r : loaded.repairs) std::cerr << "repaired: " << r << '\n';
    write_mesh(args->out, loaded.mesh, {.binary = args->binary, .msh_version = args->msh_version});
    std::cerr << "wrote " << args->out << " (" << loaded.mesh.vertices.size() << " vertices, "
              << loaded.mesh.tets.size() << " tetrahedra)\n";
  });
}

}  // namespace softbody::cli
