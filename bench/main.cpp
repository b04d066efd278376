// softbody-bench: engine benchmarks printing one JSON object each (see bench/RESULTS.md).
#include <CLI/CLI.hpp>
#include <iostream>

#include "bench/alleviation_benchmark.h"
#include "bench/contact_benchmark.h"
#include "bench/rotating_grasp_benchmark.h"
#include "bench/delassus_benchmark.h"
#include "bench/forces_benchmark.h"
#include "bench/integrators_benchmark.h"
#include "bench/solver_benchmark.h"
#include "bench/step_benchmark.h"

int main(int argc, char** argv) {
  CLI::App app{"softbody-bench: engine benchmarks (JSON output)"};
  app.require_subcommand(1);
  softbody::bench::add_forces_benchmark(app);
  softbody::bench::add_step_benchmark(app);
  softbody::bench::add_solver_benchmark(app);
  softbody::bench::add_integrators_benchmark(app);
  softbody::bench::add_delassus_benchmark(app);
  softbody::bench::add_contact_benchmark(app);
  softbody::bench::add_rotating_grasp_benchmark(app);
  softbody::bench::add_alleviation_benchmark(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << '\n';
    return 2;
  }
  return 0;
}
