// softbody-sim static SCENE: the static equilibrium of a scene's body under gravity (Newton with
// load increments, sim/static_equilibrium.h), and the mean displacement of named vertex sets
// (--probe). Used by the validation examples (docs/validation/seed-001.md, Ex. 4).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "engine/cli/commands.h"
#include "engine/cli/probe_report.h"
#include "engine/parallel/parallel.h"
#include "engine/scene/scene.h"
#include "engine/sim/static_equilibrium.h"

namespace softbody::cli {

void add_static_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "static", "solve a scene's static equilibrium under gravity (fixed vertices held)");
  struct Args {
    std::string scene;
    std::vector<std::string> sets, probes;
    StaticOptions options;
    bool json = false;
    int threads = 0;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("SCENE", args->scene, "scene file (JSON)")->required();
  cmd->add_option("--set", args->sets, "scene override KEY=VALUE (as for run; repeatable)");
  cmd->add_option("--probe", args->probes,
                  "a vertex set of the mesh (e.g. xmax of a box) whose mean displacement is "
                  "printed (repeatable)");
  cmd->add_option("--increments", args->options.increments, "gravity load increments")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--tolerance", args->options.tolerance, "|f - m g| / |m g| at which Newton stops")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_flag("--json", args->json, "print one JSON object");
  cmd->add_option("--threads", args->threads, "OpenMP threads (0: all cores)")
      ->check(CLI::NonNegativeNumber);
  cmd->callback([args] {
    set_num_threads(args->threads);
    const auto start = std::chrono::steady_clock::now();
    Scene scene = load_scene(args->scene, args->sets);
    for (const std::string& warning : scene.body->warnings)
      std::cerr << "warning: " << warning << '\n';
    const SimulationModel& model = *scene.model;
    const TetMesh& mesh = scene.body->mesh;
    for (const std::string& probe : args->probes)
      if (!mesh.vertex_sets.count(probe))
        throw std::invalid_argument("--probe " + probe +
                                    ": the mesh has no vertex set of that name");
      else if (mesh.vertex_sets.at(probe).empty())
        throw std::invalid_argument("--probe " + probe + ": the vertex set is empty");
    const bool terminal = !args->json && isatty(fileno(stderr));
    StaticResult result = solve_static(model, args->options, [&](int done, int total) {
      if (terminal) std::fprintf(stderr, "\rload increment %d/%d", done, total);
    });
    if (terminal) std::fprintf(stderr, "\n");
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    nlohmann::ordered_json j;
    j["scene"] = scene.name;
    j["vertices"] = model.topology->num_vertices();
    j["tetrahedra"] = model.topology->num_tets();
    j["model"] = scene.body->model_name;
    j["pressure"] = scene.body->nodal_pressure ? "nodal" : "element";
    j["converged"] = result.converged;
    j["newton_iterations"] = result.iterations;
    j["residual"] = result.residual;
    j["inverted_elements"] = result.inverted_elements;
    double max_displacement = 0;
    for (size_t v = 0; v < result.p.size(); ++v)
      max_displacement = std::max(max_displacement, (result.p[v] - model.rest[v]).norm());
    j["max_displacement"] = max_displacement;
    // As `run` reports its final shape, so the two can be compared.
    j["mean_displacement_over_diagonal"] = shape_error(result.p, model.rest);
    // The scene's probes, then each --probe vertex set as one more probe.
    std::vector<Probe> probes = scene.probes;
    for (const std::string& name : args->probes)
      probes.push_back({name, mesh.vertex_sets.at(name)});
    report_probes(j, "probes", probes, result.p, model.rest);
    j["seconds"] = seconds;
    if (args->json) {
      std::cout << j.dump() << '\n';
    } else {
      std::cout << j.dump(2) << '\n';
    }
    if (!result.converged) throw std::runtime_error("Newton did not converge in every increment");
  });
}

}  // namespace softbody::cli
