// Time per simulation step of a scene, broken into f+K (with the external forces), assembly of A
// and b, the solve, and the nonlinearity correction; solver iterations per second; and the
// matrix-vector product of the solver against the memory-bandwidth bound of its data.
#include "bench/step_benchmark.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>

#include "bench/timing.h"
#include "engine/parallel/parallel.h"
#include "engine/parallel/statistics.h"
#include "engine/scene/scene.h"
#include "engine/sim/integrator.h"
#include "engine/solvers/linear_operator.h"

namespace softbody::bench {
namespace {

nlohmann::ordered_json stats(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  // The mean is the amortized cost (refactorizations included); the median a typical step.
  return {{"median", percentile(v, 0.5)},
          {"mean", v.empty() ? 0.0 : sum / static_cast<double>(v.size())},
          {"p99", percentile(v, 0.99)}};
}

}  // namespace

void add_step_benchmark(CLI::App& app) {
  auto* cmd = app.add_subcommand("step", "time simulation steps of a scene");
  struct Args {
    std::string scene;
    int threads = 1;
    bool json = false;
    int steps = 60;
    int warmup = 5;
    double bandwidth_gbs = 0;
    std::vector<std::string> sets;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("--scene", args->scene, "scene file")->required();
  cmd->add_option("--threads", args->threads, "OpenMP threads")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_flag("--json", args->json, "print JSON (the only output format)");
  cmd->add_option("--steps", args->steps, "timed steps")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--warmup", args->warmup, "untimed steps first")->capture_default_str();
  cmd->add_option("--bandwidth", args->bandwidth_gbs,
                  "memory bandwidth [GB/s] for the matvec bound (see bench/RESULTS.md)");
  cmd->add_option(
      "--set", args->sets,
      "scene override KEY=VALUE (a dotted path or a JSON pointer, as softbody-sim --set)");
  cmd->callback([args] {
    set_num_threads(args->threads);
    Scene scene = load_scene(args->scene, args->sets);
    const std::unique_ptr<Integrator> integrator = make_integrator(scene.model);
    SimulationState state = rest_state(*scene.model);
    for (int k = 0; k < args->warmup; ++k) integrator->step(state);
    std::vector<double> step_ms, forces_ms, assembly_ms, solve_ms, correction_ms;
    double iterations = 0, solve_s = 0, max_residual = 0;
    long factorizations = 0, unmet = 0;
    for (int k = 0; k < args->steps; ++k) {
      StepStats s = integrator->step(state);
      step_ms.push_back(s.step_ms);
      forces_ms.push_back(s.forces_ms);
      assembly_ms.push_back(s.assembly_ms);
      solve_ms.push_back(s.solve_ms);
      correction_ms.push_back(s.correction_ms);
      iterations += s.iterations;
      solve_s += s.solve_ms * 1e-3;
      factorizations += s.factorizations;
      unmet += !s.converged;
      max_residual = std::max(max_residual, s.residual);
    }
    // The solver's product y = A x, on the stiffness of the current state.
    const MeshTopology& topo = *scene.model->topology;
    ForceOutput forces = scene.model->forces->evaluate(state.p, kEvalStiffness);
    ConstrainedBlockOperator op(topo, forces.K, scene.model->fixed);
    Eigen::VectorXd x = Eigen::VectorXd::Ones(op.size()), y;
    TimingStats matvec = time_repeatedly([&] { op.apply(x, y); }, 0.5, 20);
    const double nv = topo.num_vertices(), ne = topo.num_edges();
    // Bytes that must cross the memory bus at least once per product: the 3x3 blocks (72 B per
    // vertex and per edge), the adjacency lists (8 B per entry, 2 per edge), the edge table (8 B
    // per edge), x read and y written (24 B per vertex each).
    const double bytes = 72 * (nv + ne) + 16 * ne + 8 * ne + 48 * nv;
    nlohmann::ordered_json out;
    out["benchmark"] = "step";
    out["scene"] = scene.name;
    out["vertices"] = topo.num_vertices();
    out["tets"] = topo.num_tets();
    out["threads"] = args->threads;
    out["solver"] = solver_type_name(scene.model->options.solver.type);
    out["max_iterations"] = scene.model->options.solver.max_iterations;
    out["tolerance"] = scene.model->options.solver.tolerance;
    out["max_residual"] = max_residual;
    out["steps_tolerance_unmet"] = unmet;
    out["factorizations"] = factorizations;
    out["steps"] = args->steps;
    out["step_ms"] = stats(step_ms);
    out["forces_ms"] = stats(forces_ms);
    out["assembly_ms"] = stats(assembly_ms);
    out["solve_ms"] = stats(solve_ms);
    out["correction_ms"] = stats(correction_ms);
    out["iterations_per_step"] = iterations / args->steps;
    out["iterations_per_second"] = iterations / solve_s;
    out["matvec_ms"] = matvec.median_s * 1e3;
    out["matvec_bytes"] = bytes;
    out["matvec_gbs"] = bytes / matvec.median_s * 1e-9;
    if (args->bandwidth_gbs > 0) {
      out["bandwidth_gbs"] = args->bandwidth_gbs;
      out["matvec_vs_bandwidth_bound"] = matvec.median_s / (bytes / (args->bandwidth_gbs * 1e9));
    }
    std::cout << out.dump(2) << '\n';
  });
}

}  // namespace softbody::bench
