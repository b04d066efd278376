// softbody-sim info MESH: counts and geometry of a mesh as one JSON object.
#include <iostream>
#include <nlohmann/json.hpp>

#include "engine/cli/commands.h"
#include "engine/mesh/quality.h"
#include "engine/mesh/topology.h"
#include "engine/mesh/validation.h"

namespace softbody::cli {

void add_info_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("info", "print mesh statistics as JSON");
  auto path = std::make_shared<std::string>();
  auto repair = std::make_shared<bool>(false);
  cmd->add_option("MESH", *path, "mesh file")->required();
  cmd->add_flag("--repair", *repair, "reorient inverted tetrahedra and drop unreferenced vertices");
  cmd->callback([path, repair] {
    LoadedMesh loaded = load_mesh(*path, {.repair = *repair});
    MeshTopology topology(loaded.mesh);
    MeshStats stats = mesh_stats(loaded.mesh);
    nlohmann::ordered_json j;
    j["mesh"] = *path;
    j["format"] = std::string(format_name(loaded.format));
    j["vertices"] = topology.num_vertices();
    j["edges"] = topology.num_edges();
    j["faces"] = topology.num_faces();
    j["boundary_faces"] = topology.boundary_faces().size();
    j["boundary_vertices"] = topology.boundary_vertices().size();
    j["tets"] = topology.num_tets();
    j["tseps"] = topology.num_tseps();
    j["tseps_type1"] = topology.num_tseps_of_type(1);
    j["tseps_type2"] = topology.num_tseps_of_type(2);
    j["rest_volume"] = stats.rest_volume;
    j["min_quality"] = stats.min_quality;
    j["mean_quality"] = stats.mean_quality;
    j["slivers"] = stats.slivers;  // tetrahedra of quality below kSliverQuality
    j["warnings"] = mesh_warnings(stats, loaded.mesh.tets.size(), *path);
    j["bbox"] = {{"min", {stats.bbox_min.x(), stats.bbox_min.y(), stats.bbox_min.z()}},
                 {"max", {stats.bbox_max.x(), stats.bbox_max.y(), stats.bbox_max.z()}}};
    j["notes"] = loaded.notes;
    j["repairs"] = loaded.repairs;
    std::cout << j.dump(2) << '\n';
  });
}

}  // namespace softbody::cli
