// softbody-sim run SCENE: the headless simulator. With --json one JSON object per step and a
// summary object at the end; otherwise a progress bar on a terminal and a summary table.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <numeric>

#include "engine/cli/commands.h"
#include "engine/cli/probe_report.h"
#include "engine/forces/energy_density.h"
#include "engine/io/mesh_io.h"
#include "engine/parallel/parallel.h"
#include "engine/parallel/statistics.h"
#include "engine/scene/scene.h"
#include "engine/sim/integrator.h"

namespace softbody::cli {
namespace {

nlohmann::ordered_json step_json(const StepStats& s) {
  nlohmann::ordered_json j;
  j["step"] = s.step;
  j["t"] = s.t;
  j["iterations"] = s.iterations;
  j["matvecs"] = s.matvecs;
  j["residual"] = s.residual;
  j["tolerance"] = s.tolerance;
  j["converged"] = s.converged;
  j["stop_reason"] = stop_reason_name(s.stop_reason);
  j["solver_method"] = s.solver_method;
  j["factorizations"] = s.factorizations;
  j["factor_ms"] = s.factor_ms;
  j["factor_kind"] = factor_kind_name(s.factor_kind);
  j["factor_nonzeros"] = s.factor_nonzeros;
  j["factor_fill"] = s.factor_fill;
  j["definiteness_shift"] = s.definiteness_shift;
  j["max_speed"] = s.max_speed;
  j["min_lambda"] = s.min_lambda;
  j["corrected_vertices"] = s.corrected_vertices;
  j["contacts"] = s.contacts;
  j["constraint_contacts"] = s.constraint_contacts;
  j["active_contacts"] = s.active_contacts;
  j["max_penetration"] = s.max_penetration;
  j["pgs_residual"] = s.pgs_residual;
  j["pgs_iterations"] = s.pgs_iterations;
  j["contact_newton_iterations"] = s.contact_newton_iterations;
  j["contact_ms"] = s.contact_ms;
  j["contact_times_ms"] = {{"detect", s.contact_times.detect_ms},
                           {"factor", s.contact_times.factor_ms},
                           {"compliance", s.contact_times.compliance_ms},
                           {"solve", s.contact_times.solve_ms},
                           {"correction", s.contact_times.correction_ms}};
  j["newton_iterations"] = s.newton_iterations;
  j["jacobian_updates"] = s.jacobian_updates;
  j["line_search_backtracks"] = s.line_search_backtracks;
  j["newton_fallback"] = s.newton_fallback;
  j["newton_round_off"] = s.newton_round_off;
  if (s.bdf_order > 0) j["bdf_order"] = s.bdf_order;
  j["inverted_elements"] = s.inverted_elements;
  j["inverted_before_alleviation"] = s.inverted_before_alleviation;
  j["energy_removed"] = s.energy_removed;
  j["alleviation_sweeps"] = s.alleviation_sweeps;
  j["rolled_back"] = s.rolled_back;
  j["substeps"] = s.substeps;
  j["failed"] = s.failed;
  j["step_ms"] = s.step_ms;
  j["forces_ms"] = s.forces_ms;
  j["assembly_ms"] = s.assembly_ms;
  j["solve_ms"] = s.solve_ms;
  j["correction_ms"] = s.correction_ms;
  return j;
}

void progress_bar(long done, long total, const StepStats& s) {
  const int width = 40;
  const int filled = static_cast<int>(width * done / std::max(total, 1L));
  std::fprintf(stderr, "\r[%s%s] %3ld%%  t=%.3f s  step %.1f ms  it %d  |v|max %.3g m/s ",
               std::string(static_cast<size_t>(filled), '#').c_str(),
               std::string(static_cast<size_t>(width - filled), ' ').c_str(),
               100 * done / std::max(total, 1L), s.t, s.step_ms, s.iterations, s.max_speed);
  std::fflush(stderr);
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("run", "run a scene headless");
  struct Args {
    std::string scene;
    long steps = 0;
    double duration = 0;
    bool json = false;
    std::vector<std::string> vtu;  // K DIR
    std::vector<std::string> sets;
    int threads = 0;
    double speed_threshold = 1.5;
    bool reference = false;
    bool exact_only = false;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("SCENE", args->scene, "scene file (JSON)")->required();
  auto* steps =
      cmd->add_option("--steps", args->steps, "number of steps")->check(CLI::PositiveNumber);
  cmd->add_option("--duration", args->duration,
                  "simulated time [s] (default: the scene's duration)")
      ->check(CLI::PositiveNumber)
      ->excludes(steps);
  cmd->add_flag("--json", args->json, "one JSON line per step and a summary object");
  cmd->add_option("--vtu-every", args->vtu, "write a VTU file every K steps into DIR")
      ->expected(2)
      ->type_name("K DIR");
  cmd->add_option(
      "--set", args->sets,
      "scene override KEY=VALUE, e.g. solver.type=cg or /obstacles/1/contact/friction=0 (a dotted "
      "path or a JSON pointer; numbers index arrays; repeatable)");
  cmd->add_option("--threads", args->threads, "OpenMP threads (0: all cores)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--speed-threshold", args->speed_threshold,
                  "count steps whose max vertex speed exceeds this [m/s]")
      ->capture_default_str();
  cmd->add_flag("--reference", args->reference,
                "also run the scene with converged solves (direct, 1e-10) in lockstep and report "
                "the mean vertex distance to it over the rest bounding-box diagonal (fidelity), "
                "to the exact step (implicit-euler, Newton to 1e-10) and to the exact linearized "
                "step (converged, LDL^T)");
  cmd->add_flag("--exact-only", args->exact_only,
                "with --reference: step only the exact reference (implicit-euler, Newton to "
                "1e-10), its solves through a reused factor, not a factorization each: for large "
                "meshes, where four references a step take too long")
      ->needs("--reference");
  cmd->callback([args] {
    set_num_threads(args->threads);
    Scene scene = load_scene(args->scene, args->sets);
    for (const std::string& warning : scene.body->warnings)
      std::cerr << "warning: " << warning << '\n';
    const SimulationModel& model = *scene.model;
    long total =
        args->steps > 0
            ? args->steps
            : static_cast<long>(std::llround(
                  (args->duration > 0 ? args->duration : scene.duration) / model.options.dt));
    total = std::max(total, 1L);
    long vtu_every = 0;
    std::filesystem::path vtu_dir;
    if (!args->vtu.empty()) {
      vtu_every = std::stol(args->vtu[0]);
      if (vtu_every < 1) throw std::invalid_argument("--vtu-every: K must be >= 1");
      vtu_dir = args->vtu[1];
      std::filesystem::create_directories(vtu_dir);
    }
    auto write_vtu_frame = [&](const SimulationState& s) {
      char name[64];
      std::snprintf(name, sizeof(name), "%s_%06ld.vtu", scene.name.c_str(), s.step);
      std::vector<double> density =
          strain_energy_density(scene.body->model_name, scene.body->mesh, scene.body->material,
                                scene.body->volumetric, s.p, scene.body->nodal_pressure);
      write_state_vtu((vtu_dir / name).string(), scene.body->mesh, s.p, &s.v, &density);
    };

    const std::unique_ptr<Integrator> integrator = make_integrator(scene.model);
    SimulationState state = rest_state(model);
    // The reference: the same model with converged solves, stepped beside the run; and a second
    // one started 1e-9 diagonals away, whose distance to the first (the spread) says how far
    // apart two equally valid converged runs drift in this scene: a fidelity figure below the
    // spread cannot be told from the scene's own sensitivity.
    // Beside them the exact reference (design guide: a fix may change the path, never the
    // answer): converged nonlinear implicit Euler at the same dt, whose answer no linearization
    // or definiteness fix moves; and the exact linearized step (seed 000's, converged, with no
    // definiteness fix: LDL^T), which tells the linearization's error from the fix's.
    std::unique_ptr<Integrator> reference, perturbed, exact, exact_linearized;
    SimulationState reference_state = state, perturbed_state = state, exact_state = state,
                    exact_linearized_state = state;
    const double diagonal = bounding_box(model.rest).diagonal();
    if (args->reference) {
      auto reference_model = std::make_shared<SimulationModel>(model);
      reference_model->options = reference_options(model.options);
      auto exact_model = std::make_shared<SimulationModel>(*reference_model);
      exact_model->options.type = IntegratorType::kImplicitEuler;
      // Newton's answer is the root whatever solves its directions: a reused factor serves.
      if (args->exact_only) exact_model->options.solver.type = SolverType::kAuto;
      exact = make_integrator(exact_model);
      if (!args->exact_only) {
        reference = make_integrator(reference_model);
        perturbed = make_integrator(reference_model);
        auto linearized_model = std::make_shared<SimulationModel>(*reference_model);
        linearized_model->options.type = IntegratorType::kLinearizedBackwardEuler;
        linearized_model->options.solver.definite = false;
        exact_linearized = make_integrator(linearized_model);
        for (size_t i = 0; i < perturbed_state.p.size(); ++i) {
          if (!model.fixed.empty() && model.fixed[i]) continue;
          const double phase = static_cast<double>(i);
          perturbed_state.p[i] +=
              1e-9 * diagonal * Vec3(std::sin(phase), std::cos(1.3 * phase), std::sin(2.1 * phase));
        }
      }
    }
    std::vector<double> fidelity, spread, exactness, linearized_exactness;
    long exact_fallbacks = 0;
    double max_residual = 0, max_tolerance = 0;
    long unmet = 0, factorizations = 0;
    if (vtu_every) write_vtu_frame(state);
    const bool bar = !args->json && isatty(STDERR_FILENO);
    std::vector<double> step_ms, iterations;
    double max_speed = 0;
    long over_threshold = 0, rollbacks = 0, failed = 0, corrected_steps = 0;
    double energy_removed = 0;  // by the fixed-iteration solvers' energy guard, over the run
    const auto wall_start = std::chrono::steady_clock::now();
    for (long k = 0; k < total; ++k) {
      StepStats s = integrator->step(state);
      step_ms.push_back(s.step_ms);
      iterations.push_back(s.iterations);
      max_speed = std::max(max_speed, s.max_speed);
      over_threshold += s.max_speed > args->speed_threshold;
      rollbacks += s.rolled_back;
      energy_removed += s.energy_removed;
      failed += s.failed;
      corrected_steps += s.corrected_vertices > 0;
      max_residual = std::max(max_residual, s.residual);
      max_tolerance = std::max(max_tolerance, s.tolerance);
      unmet += !s.converged;
      factorizations += s.factorizations;
      if (exact) {
        exact_fallbacks += exact->step(exact_state).newton_fallback;
        exactness.push_back(mean_distance(state.p, exact_state.p, diagonal));
      }
      if (reference) {
        reference->step(reference_state);
        perturbed->step(perturbed_state);
        exact_linearized->step(exact_linearized_state);
        linearized_exactness.push_back(mean_distance(state.p, exact_linearized_state.p, diagonal));
        fidelity.push_back(mean_distance(state.p, reference_state.p, diagonal));
        spread.push_back(mean_distance(perturbed_state.p, reference_state.p, diagonal));
      }
      if (args->json) {
        nlohmann::ordered_json line = step_json(s);
        if (reference) {
          line["distance_to_reference"] = fidelity.back();
          line["reference_spread"] = spread.back();
        }
        if (exact) line["distance_to_exact"] = exactness.back();
        if (reference) line["distance_to_exact_linearized"] = linearized_exactness.back();
        report_probes(line, "probes", scene.probes, state.p, model.rest);
        const BoundingBox box = bounding_box(state.p);
        line["bbox_min"] = {box.min.x(), box.min.y(), box.min.z()};
        line["bbox_max"] = {box.max.x(), box.max.y(), box.max.z()};
        const Momentum body = momentum(model.mass, state.p, state.v);
        line["momentum"] = {body.linear.x(), body.linear.y(), body.linear.z()};
        line["angular_momentum"] = {body.angular.x(), body.angular.y(), body.angular.z()};
        std::cout << line.dump() << '\n';
      }
      if (bar && (k % 5 == 0 || k + 1 == total)) progress_bar(k + 1, total, s);
      if (vtu_every && state.step % vtu_every == 0) write_vtu_frame(state);
    }
    if (bar) std::fprintf(stderr, "\n");
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    nlohmann::ordered_json summary;
    summary["summary"] = true;
    summary["scene"] = scene.name;
    summary["vertices"] = model.topology->num_vertices();
    summary["tets"] = model.topology->num_tets();
    summary["steps"] = total;
    summary["sim_time"] = state.t;
    summary["wall_s"] = wall;
    summary["realtime_factor"] = state.t / wall;
    summary["median_step_ms"] = percentile(step_ms, 0.5);
    summary["p99_step_ms"] = percentile(step_ms, 0.99);
    summary["mean_iterations"] = std::accumulate(iterations.begin(), iterations.end(), 0.0) /
                                 static_cast<double>(iterations.size());
    summary["median_iterations"] = percentile(iterations, 0.5);
    summary["integrator"] = integrator_type_name(model.options.type);
    summary["solver"] = solver_type_name(model.options.solver.type);
    // What each step's residual was held to: Newton's tolerance under a Newton integrator (the
    // linear solves' under the linearized step and in fallback steps).
    summary["tolerance"] = max_tolerance;
    summary["max_residual"] = max_residual;
    summary["steps_tolerance_unmet"] = unmet;
    summary["factorizations"] = factorizations;
    const auto mean = [](const std::vector<double>& x) {
      return std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(x.size());
    };
    const auto largest = [](const std::vector<double>& x) {
      return *std::max_element(x.begin(), x.end());
    };
    if (reference) {
      // Fidelity: the mean vertex distance to the converged run over the rest diagonal.
      // A fixed-iteration solver's reference is implicit Euler on the same energy.
      summary["reference"] =
          std::string(integrator_type_name(reference_options(model.options).type)) +
          ", direct, tolerance 1e-10";
      summary["mean_distance_to_reference"] = mean(fidelity);
      summary["max_distance_to_reference"] = largest(fidelity);
      summary["final_distance_to_reference"] = fidelity.back();
      summary["mean_reference_spread"] = mean(spread);
      summary["max_reference_spread"] = largest(spread);
    }
    if (exact) {
      summary["exact_reference"] = args->exact_only
                                       ? "implicit-euler, Newton to 1e-10, reused factor"
                                       : "implicit-euler, Newton to 1e-10";
      summary["mean_distance_to_exact"] = mean(exactness);
      summary["max_distance_to_exact"] = largest(exactness);
      summary["exact_reference_fallback_steps"] = exact_fallbacks;
    }
    if (reference) {
      summary["exact_linearized_reference"] =
          "linearized-backward-euler, direct 1e-10, definiteness exact";
      summary["mean_distance_to_exact_linearized"] = mean(linearized_exactness);
      summary["max_distance_to_exact_linearized"] = largest(linearized_exactness);
    }
    summary["max_speed"] = max_speed;
    summary["speed_threshold"] = args->speed_threshold;
    summary["steps_over_threshold"] = over_threshold;
    summary["steps_with_correction"] = corrected_steps;
    summary["final_mean_displacement_over_diagonal"] = shape_error(state.p, model.rest);
    report_probes(summary, "final_probes", scene.probes, state.p, model.rest);
    summary["rollbacks"] = rollbacks;
    summary["failed_steps"] = failed;
    summary["energy_removed"] = energy_removed;
    std::cout << (args->json ? summary.dump() : summary.dump(2)) << '\n';
  });
}

}  // namespace softbody::cli
