// The linear solvers on one real step matrix of a scene (taken after some steps, so contacts and
// deformation are in it): the sparse factorization (analysis, numeric factorization, one solve
// with the factor, nonzeros and fill), the product with A, and each method's iterations and time
// to the tolerance from the step's warm start, including a factor of the matrix `--drift` steps
// earlier reused as the preconditioner (auto's usual case). It also reports the ratio of the
// factorization's flop rate to an iteration's, which the StepSolver's cost model assumes.
#include "bench/solver_benchmark.h"

#include <iostream>
#include <nlohmann/json.hpp>

#include "bench/timing.h"
#include "engine/parallel/parallel.h"
#include "engine/scene/scene.h"
#include "engine/sim/integrator.h"
#include "engine/solvers/block_ssor.h"
#include "engine/solvers/incomplete_cholesky.h"
#include "engine/solvers/step_solver.h"

namespace softbody::bench {

void add_solver_benchmark(CLI::App& app) {
  auto* cmd = app.add_subcommand("solver", "linear solvers on a scene's step matrix");
  struct Args {
    std::string scene;
    int threads = 1;
    int steps = 20;
    int drift = 10;
    double tolerance = 1e-6;
    double seconds = 0.5;
    std::vector<std::string> sets;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("--scene", args->scene, "scene file")->required();
  cmd->add_option("--threads", args->threads, "threads (OpenMP and BLAS)")->capture_default_str();
  cmd->add_option("--steps", args->steps, "steps before the matrix is taken")
      ->capture_default_str();
  cmd->add_option("--drift", args->drift, "age of the reused factor [steps]")
      ->capture_default_str();
  cmd->add_option("--tolerance", args->tolerance, "relative residual")->capture_default_str();
  cmd->add_option("--seconds", args->seconds, "minimum time per measurement")
      ->capture_default_str();
  cmd->add_option(
      "--set", args->sets,
      "scene override KEY=VALUE (a dotted path or a JSON pointer, as softbody-sim --set)");
  cmd->callback([args] {
    // The reused factor's matrix is one a step made: before the first step there is none.
    if (args->drift < 1 || args->drift >= args->steps)
      throw CLI::ValidationError("--drift", "must be at least 1 and below --steps (" +
                                                std::to_string(args->steps) + "), got " +
                                                std::to_string(args->drift));
    set_num_threads(args->threads);
    set_blas_threads(args->threads);
    Scene scene = load_scene(args->scene, args->sets);
    const SimulationModel& model = *scene.model;
    const std::unique_ptr<Integrator> integrator = make_integrator(scene.model);
    SimulationState state = rest_state(model);
    const int old_step = std::max(0, args->steps - args->drift);
    for (int k = 0; k < old_step; ++k) integrator->step(state);
    const EdgeBlockMatrix old_matrix = *integrator->system_matrix();
    for (int k = old_step; k < args->steps; ++k) integrator->step(state);
    const Eigen::VectorXd warm = Eigen::Map<const Eigen::VectorXd>(
        state.v.front().data(), 3 * static_cast<Eigen::Index>(state.v.size()));
    integrator->step(state);  // the matrix of this step is the one measured
    const EdgeBlockMatrix a_matrix = *integrator->system_matrix();
    const Eigen::VectorXd b = *integrator->system_rhs();
    const MeshTopology& topo = *model.topology;
    ConstrainedBlockOperator a(topo, a_matrix, model.fixed);

    nlohmann::ordered_json out;
    out["benchmark"] = "solver";
    out["scene"] = scene.name;
    out["vertices"] = topo.num_vertices();
    out["tets"] = topo.num_tets();
    out["unknowns"] = a.size();
    out["threads"] = args->threads;
    out["tolerance"] = args->tolerance;
    out["symmetric"] = vertex_blocks_symmetric(a);

    // The factorization.
    SymmetricCsc csc(topo, model.fixed);
    csc.assign(a_matrix);
    SparseCholesky factor;
    const double analyze_ms = factor.analyze(csc);
    FactorInfo info;
    const TimingStats factor_time =
        time_repeatedly([&] { info = factor.factorize(csc); }, args->seconds, 3);
    Eigen::VectorXd z;
    const TimingStats apply_time = time_repeatedly([&] { factor.solve(b, z); }, args->seconds, 20);
    Eigen::VectorXd y;
    const TimingStats matvec_time = time_repeatedly([&] { a.apply(b, y); }, args->seconds, 20);
    const double iteration_flops = 4.0 * info.nnz_factor + 4.0 * csc.nonzeros();
    const double iteration_s = apply_time.median_s + matvec_time.median_s;
    out["factor"] = {
        {"kind", factor_kind_name(info.kind)},
        {"analyze_ms", analyze_ms},
        {"factor_ms", factor_time.median_s * 1e3},
        {"solve_ms", apply_time.median_s * 1e3},
        {"nnz_matrix_upper", info.nnz_matrix},
        {"nnz_factor", info.nnz_factor},
        {"fill", info.fill},
        {"factor_gflops", info.flops / factor_time.median_s * 1e-9},
        {"iteration_gflops", iteration_flops / iteration_s * 1e-9},
        {"rate_ratio", (info.flops / factor_time.median_s) / (iteration_flops / iteration_s)}};
    out["matvec_ms"] = matvec_time.median_s * 1e3;

    // Each method from the step's warm start to the tolerance.
    nlohmann::ordered_json methods = nlohmann::ordered_json::array();
    auto measure = [&](const std::string& name,
                       const std::function<SolveReport(Eigen::VectorXd&)>& run) {
      SolveReport report;
      Eigen::VectorXd x;
      const TimingStats t = time_repeatedly(
          [&] {
            x = warm;
            report = run(x);
          },
          args->seconds, 3);
      Eigen::VectorXd ax;
      a.apply(x, ax);
      methods.push_back({{"method", name},
                         {"iterations", report.iterations},
                         {"converged", report.reason == StopReason::kConverged},
                         {"relative_residual", (b - ax).norm() / b.norm()},
                         {"ms", t.median_s * 1e3}});
    };
    auto krylov = [&](SolverType type, PreconditionerType p, int cap) {
      return [&, type, p, cap](Eigen::VectorXd& x) {
        return solve(a, b, x,
                     {.type = type,
                      .preconditioner = p,
                      .tolerance = args->tolerance,
                      .max_iterations = cap});
      };
    };
    measure("cg+block-jacobi", krylov(SolverType::kCg, PreconditionerType::kBlockJacobi, 20000));
    measure("qmr+block-jacobi", krylov(SolverType::kQmr, PreconditionerType::kBlockJacobi, 20000));
    measure("cg+ssor (Eisenstat)", krylov(SolverType::kCg, PreconditionerType::kSsor, 20000));
    measure("gmres+ssor", krylov(SolverType::kGmres, PreconditionerType::kSsor, 20000));
    measure("cg+ic (incl. build)",
            krylov(SolverType::kCg, PreconditionerType::kIncompleteCholesky, 20000));
    measure("direct (factor + solve)", [&](Eigen::VectorXd& x) {
      StepSolver s;
      return s.solve(a, b, x, {.type = SolverType::kDirect, .tolerance = args->tolerance});
    });
    // A factor of the matrix `drift` steps older, reused (analysis and factorization untimed).
    SymmetricCsc old_csc(topo, model.fixed);
    old_csc.assign(old_matrix);
    SparseCholesky old_factor;
    old_factor.factorize(old_csc);
    const FactorPreconditioner reused(old_factor);
    measure("cg with a " + std::to_string(args->drift) + "-step-old factor",
            [&](Eigen::VectorXd& x) {
              return krylov_solve(SolverType::kCg, a, reused, b, x,
                                  {.tolerance = args->tolerance, .max_iterations = 1000});
            });
    measure("gmres with a " + std::to_string(args->drift) + "-step-old factor",
            [&](Eigen::VectorXd& x) {
              return krylov_solve(SolverType::kGmres, a, reused, b, x,
                                  {.tolerance = args->tolerance, .max_iterations = 1000});
            });
    out["methods"] = methods;
    std::cout << out.dump(2) << '\n';
  });
}

}  // namespace softbody::bench
