// The contact compliance W = J A^-1 J^T of seed 002 along a scene's run: with the factor the step
// solver reuses (as seed 002 reuses its preconditioner's) against a fresh factorization of each
// step's matrix, how far apart they are and what each costs; and the half-solve W against m full
// solves. J: the normals (y) of the M lowest free boundary vertices, as floor contacts would be.
#include "bench/delassus_benchmark.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>

#include "engine/parallel/statistics.h"
#include "engine/scene/scene.h"
#include "engine/sim/integrator.h"
#include "engine/sim/stages/step_forces.h"
#include "engine/sim/stages/step_matrix.h"
#include "engine/solvers/step_solver.h"

namespace softbody::bench {
namespace {

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

nlohmann::ordered_json median_p90(std::vector<double> v) {
  return {{"median", percentile(v, 0.5)}, {"p90", percentile(v, 0.9)}};
}

}  // namespace

void add_delassus_benchmark(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "delassus", "contact compliance with the reused factor against a fresh one (issue 22)");
  struct Args {
    std::string scene;
    int steps = 50, rows = 32;
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("--scene", args->scene, "scene file")->required();
  cmd->add_option("--steps", args->steps, "steps measured")->capture_default_str();
  cmd->add_option("--rows", args->rows, "constraint rows (lowest boundary vertices)")
      ->capture_default_str();
  cmd->add_flag("--json", args->json, "print JSON (the only output format)");
  cmd->callback([args] {
    Scene scene = load_scene(args->scene);
    const SimulationModel& model = *scene.model;
    const MeshTopology& topology = *model.topology;
    // Free boundary vertices only (fixed ones do not move: the step solver's W drops them).
    std::vector<Index> lowest;
    for (Index v : topology.boundary_vertices())
      if (model.fixed.empty() || !model.fixed[static_cast<size_t>(v)]) lowest.push_back(v);
    std::sort(lowest.begin(), lowest.end(), [&](Index a, Index b) {
      return model.rest[static_cast<size_t>(a)].y() < model.rest[static_cast<size_t>(b)].y();
    });
    lowest.resize(std::min(lowest.size(), static_cast<size_t>(args->rows)));
    const auto n = static_cast<Eigen::Index>(3 * topology.num_vertices());
    const auto m = static_cast<Eigen::Index>(lowest.size());
    std::vector<Eigen::Triplet<double>> entries;
    for (Eigen::Index k = 0; k < m; ++k) entries.emplace_back(3 * lowest[size_t(k)] + 1, k, 1.0);
    Eigen::SparseMatrix<double> jt(n, m);
    jt.setFromTriplets(entries.begin(), entries.end());
    const Eigen::MatrixXd dense_jt(jt);

    const std::unique_ptr<Integrator> integrator = make_integrator(scene.model);
    SimulationState state = rest_state(model);
    StepSolver reused;  // auto: refactors when its policy says so, as a session's does
    SolverOptions options = model.options.solver;
    options.type = SolverType::kAuto;
    options.definite = true;
    std::vector<double> difference, reused_ms, fresh_factor_ms, half_solve_ms, full_solves_ms;
    long reused_factorizations = 0;
    for (int step = 0; step < args->steps; ++step) {
      StepInternalForces internal(model);
      internal.begin(state, model.options.dt);
      ForceOutput forces;
      ExternalForceOutput external;
      evaluate_step_forces(model, step_loads(model, {}, state.t), state.p,
                           state.t + model.options.dt, internal, forces, external);
      EdgeBlockMatrix matrix;
      Eigen::VectorXd rhs, x = Eigen::VectorXd::Zero(n);
      assemble_step_system(model, model.options.dt, forces, external, state.v, matrix, rhs);
      ConstrainedBlockOperator op(topology, matrix, model.fixed);
      reused_factorizations += reused.solve(op, rhs, x, options).factorizations;
      auto start = std::chrono::steady_clock::now();
      const Eigen::MatrixXd w_reused = reused.delassus(op, jt);
      reused_ms.push_back(ms_since(start));
      // A fresh definite factor of this step's matrix.
      SymmetricCsc csc(topology, model.fixed);
      csc.assign(matrix);
      SparseCholesky fresh;
      fresh.analyze(csc);
      start = std::chrono::steady_clock::now();
      fresh.factorize(csc, /*definite_only=*/true);
      fresh_factor_ms.push_back(ms_since(start));
      start = std::chrono::steady_clock::now();
      const Eigen::MatrixXd w_fresh = fresh.inverse_quadratic_form(jt);
      half_solve_ms.push_back(ms_since(start));
      start = std::chrono::steady_clock::now();
      Eigen::MatrixXd solved;
      fresh.solve(dense_jt, solved);
      const Eigen::MatrixXd w_full = dense_jt.transpose() * solved;
      full_solves_ms.push_back(ms_since(start));
      if ((w_full - w_fresh).norm() > 1e-8 * w_fresh.norm())
        throw std::runtime_error("half-solves and full solves disagree");
      difference.push_back((w_reused - w_fresh).norm() / w_fresh.norm());
      integrator->step(state);
    }
    nlohmann::ordered_json out;
    out["benchmark"] = "delassus";
    out["scene"] = scene.name;
    out["unknowns"] = n;
    out["rows"] = m;
    out["steps"] = args->steps;
    out["reused_factorizations"] = reused_factorizations;
    out["relative_difference_reused_vs_fresh"] = median_p90(difference);
    out["relative_difference_max"] = *std::max_element(difference.begin(), difference.end());
    out["w_from_reused_factor_ms"] = median_p90(reused_ms);
    out["fresh_factorization_ms"] = median_p90(fresh_factor_ms);
    out["w_by_half_solves_ms"] = median_p90(half_solve_ms);
    out["w_by_full_solves_ms"] = median_p90(full_solves_ms);
    std::cout << out.dump(2) << '\n';
  });
}

}  // namespace softbody::bench
