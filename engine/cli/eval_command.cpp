// softbody-sim eval MESH --deformed FILE: energy, force norm and stiffness norm of a configuration.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "engine/cli/commands.h"
#include "engine/forces/energy_density.h"
#include "engine/forces/force_model.h"
#include "engine/io/io_util.h"
#include "engine/mesh/validation.h"
#include "engine/parallel/parallel.h"

namespace softbody::cli {

namespace {

void write_forces(const std::string& path, const TetMesh& deformed, const Vec3Array& f) {
  if (std::filesystem::path(path).extension() == ".vtu") {
    Field force{"force", 3, {}};
    for (const Vec3& v : f) force.values.insert(force.values.end(), {v.x(), v.y(), v.z()});
    write_vtu(path, deformed, {{force}, {}}, true);
    return;
  }
  std::ofstream out = open_for_writing(path);
  out << "vertex,fx,fy,fz\n";
  for (size_t i = 0; i < f.size(); ++i)
    out << i << ',' << f[i].x() << ',' << f[i].y() << ',' << f[i].z() << '\n';
  finish_writing(out, path);
}

}  // namespace

void add_eval_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "eval", "evaluate energy, forces and stiffness at a deformed configuration");
  struct Args {
    std::string path, deformed, forces_out, vtu_out;
    ModelOptions model;
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("MESH", args->path, "rest mesh")->required();
  cmd->add_option("--deformed", args->deformed,
                  "the same mesh with deformed vertex positions (any format)")
      ->required();
  add_model_options(*cmd, args->model);
  cmd->add_flag("--json", args->json, "print JSON");
  cmd->add_option("--forces-out", args->forces_out,
                  "write f per vertex (.csv, or .vtu with a 'force' point field)");
  cmd->add_option("--vtu-out", args->vtu_out,
                  "write the deformed mesh as VTU with displacement and strain energy density");
  cmd->callback([args] {
    set_num_threads(args->model.threads);
    LoadedMesh rest = load_mesh(args->path);
    // The deformed configuration may contain inverted elements: parse it without validation.
    ParsedMesh deformed = parse_mesh_file(args->deformed);
    if (deformed.mesh.vertices.size() != rest.mesh.vertices.size() ||
        deformed.mesh.tets != rest.mesh.tets) {
      throw MeshError(args->deformed, "does not have the same vertices and tetrahedra as " +
                                          args->path + " (" +
                                          std::to_string(deformed.mesh.vertices.size()) + " vs " +
                                          std::to_string(rest.mesh.vertices.size()) + " vertices)");
    }
    auto topology = std::make_shared<const MeshTopology>(rest.mesh);
    Material material{args->model.youngs_modulus, args->model.poisson_ratio};
    auto model = make_force_model(args->model.model, topology, rest.mesh.vertices, material,
                                  parse_volumetric_kind(args->model.volumetric));
    ForceOutput out = model->evaluate(deformed.mesh.vertices, kEvalAll);
    double f_norm = 0;
    for (const Vec3& f : out.f) f_norm += f.squaredNorm();
    f_norm = std::sqrt(f_norm);
    if (!args->forces_out.empty()) write_forces(args->forces_out, deformed.mesh, out.f);
    if (!args->vtu_out.empty()) {
      std::vector<double> density = strain_energy_density(
          args->model.model, rest.mesh, material, parse_volumetric_kind(args->model.volumetric),
          deformed.mesh.vertices);
      write_state_vtu(args->vtu_out, rest.mesh, deformed.mesh.vertices, nullptr, &density);
    }
    if (args->json) {
      nlohmann::ordered_json j;
      j["mesh"] = args->path;
      j["deformed"] = args->deformed;
      j["model"] = args->model.model;
      j["volumetric"] = args->model.volumetric;
      j["E"] = args->model.youngs_modulus;
      j["nu"] = args->model.poisson_ratio;
      j["energy"] = out.energy;
      j["force_norm"] = f_norm;
      j["stiffness_frobenius_norm"] = out.K.frobenius_norm();
      std::cout << j.dump(2) << '\n';
    } else {
      std::cout.precision(12);
      std::cout << "strain energy      " << out.energy << " J\n"
                << "|f|_2              " << f_norm << " N\n"
                << "|K|_F              " << out.K.frobenius_norm() << " N/m\n";
    }
  });
}

}  // namespace softbody::cli
