// softbody-sim check MESH: verifies a force model on a random large deformation.
//
// Output fields (relative errors, see engine/forces/verification.h):
//   force_vs_energy       f against central differences of W along random directions
//   stiffness_vs_forces   K d against central differences of f along random directions
//   forces_vs_stvk_tl     |f - f_tl| / |f_tl|            (stvk-edge only)
//   stiffness_vs_stvk_tl  |K - K_tl|_F / |K_tl|_F        (stvk-edge only)
//   energy_vs_stvk_tl     |W - W_tl| / |W_tl|            (stvk-edge only)
// Exit status 1 when an error exceeds its tolerance ("tolerances" in the output).
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>

#include "engine/cli/commands.h"
#include "engine/forces/verification.h"
#include "engine/mesh/validation.h"
#include "engine/parallel/parallel.h"

namespace softbody::cli {

namespace {
constexpr double kFiniteDifferenceTolerance = 1e-6;
constexpr double kEquivalenceTolerance = 1e-10;
}  // namespace

void add_check_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "check", "finite-difference and equivalence checks of a force model (JSON)");
  struct Args {
    std::string path;
    ModelOptions model;
    double deform = 0.2;
    unsigned seed = 1;
    double fd_step = FiniteDifferenceOptions{}.step;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("MESH", args->path, "mesh file")->required();
  add_model_options(*cmd, args->model);
  cmd->add_option("--deform", args->deform,
                  "amplitude of the smooth deformation, relative to the bounding-box diagonal")
      ->capture_default_str();
  cmd->add_option("--seed", args->seed, "random seed")->capture_default_str();
  cmd->add_option("--fd-step", args->fd_step,
                  "finite-difference step, relative to the bounding-box diagonal")
      ->capture_default_str();
  cmd->callback([args] {
    set_num_threads(args->model.threads);
    LoadedMesh loaded = load_mesh(args->path);
    auto topology = std::make_shared<const MeshTopology>(loaded.mesh);
    Material material{args->model.youngs_modulus, args->model.poisson_ratio};
    VolumetricKind vol = parse_volumetric_kind(args->model.volumetric);
    auto model = make_force_model(args->model.model, topology, loaded.mesh.vertices, material, vol);
    Vec3Array p = random_smooth_deformation(loaded.mesh.vertices, args->deform, args->seed);
    nlohmann::ordered_json j;
    j["mesh"] = args->path;
    j["model"] = args->model.model;
    j["volumetric"] = args->model.volumetric;
    j["deform"] = args->deform;
    j["seed"] = args->seed;
    bool ok = true;
    auto record = [&](const char* name, double value, double tolerance) {
      j[name] = value;
      ok = ok && value <= tolerance;
    };
    FiniteDifferenceOptions fd;
    fd.seed = args->seed;
    fd.step = args->fd_step;
    record("force_vs_energy", force_vs_energy_error(*model, p, fd), kFiniteDifferenceTolerance);
    record("stiffness_vs_forces", stiffness_vs_force_error(*model, p, fd),
           kFiniteDifferenceTolerance);
    if (args->model.model == "stvk-edge") {
      auto reference = make_force_model("stvk-tl", topology, loaded.mesh.vertices, material, vol);
      ModelDifference d = compare_models(*model, *reference, p);
      record("forces_vs_stvk_tl", d.forces, kEquivalenceTolerance);
      record("stiffness_vs_stvk_tl", d.stiffness, kEquivalenceTolerance);
      record("energy_vs_stvk_tl", d.energy, kEquivalenceTolerance);
    }
    j["tolerances"] = {{"finite_difference", kFiniteDifferenceTolerance},
                       {"equivalence", kEquivalenceTolerance}};
    j["passed"] = ok;
    std::cout << j.dump(2) << '\n';
    if (!ok) std::exit(1);
  });
}

}  // namespace softbody::cli
