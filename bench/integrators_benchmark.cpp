// Work against precision on seed 001's toy spring: every integrator runs one period of the
// closed-form oscillator at 10 ... 640 steps; for each, the phase-space error against the closed
// form, the work (steps, Newton iterations, factorizations) and the median wall time of the run.
// docs/validation/seed001/toy_spring.py plots it.
#include "bench/integrators_benchmark.h"

#include <iostream>
#include <nlohmann/json.hpp>

#include "bench/timing.h"
#include "engine/sim/integrator.h"
#include "engine/sim/toy_spring.h"

namespace softbody::bench {

void add_integrators_benchmark(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "integrators", "work against precision of every integrator on the toy spring (one period)");
  auto json = std::make_shared<bool>(false);
  auto min_seconds = std::make_shared<double>(0.2);
  cmd->add_flag("--json", *json, "print JSON (the only output format)");
  cmd->add_option("--min-seconds", *min_seconds, "time each run at least this long")
      ->capture_default_str();
  cmd->callback([min_seconds] {
    const ToySpring spring;
    nlohmann::ordered_json out;
    out["benchmark"] = "integrators";
    out["system"] = {{"omega_rad_s", spring.omega},
                     {"amplitude_m", spring.amplitude},
                     {"period_s", spring.period()},
                     {"vertices", 8}};
    for (IntegratorType type :
         {IntegratorType::kLinearizedBackwardEuler, IntegratorType::kImplicitEuler,
          IntegratorType::kBdf2, IntegratorType::kBdf3}) {
      nlohmann::ordered_json runs = nlohmann::ordered_json::array();
      for (int steps = 10; steps <= 640; steps *= 2) {
        auto model =
            std::make_shared<const SimulationModel>(spring.model(type, spring.period() / steps));
        double error = 0;
        long newton = 0, factorizations = 0;
        const TimingStats timing = time_repeatedly(
            [&] {
              auto integrator = make_integrator(model);
              SimulationState s = spring.exact_start(*model);
              newton = factorizations = 0;
              for (int i = 0; i < steps; ++i) {
                const StepStats stats = integrator->step(s);
                newton += stats.newton_iterations;
                factorizations += stats.factorizations;
              }
              error = spring.error(*model, s);
            },
            *min_seconds, 3);
        runs.push_back({{"steps", steps},
                        {"dt_s", model->options.dt},
                        {"error_relative", error / spring.amplitude},
                        {"newton_iterations", newton},
                        {"factorizations", factorizations},
                        {"wall_ms_median", 1e3 * timing.median_s},
                        {"repetitions", timing.runs}});
      }
      out["integrators"][integrator_type_name(type)] = runs;
    }
    std::cout << out.dump(2) << '\n';
  });
}

}  // namespace softbody::bench
