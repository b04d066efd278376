// Seed 002's Table 1 trend on our CPU: the cost of one Newton iteration of constraint contact with
// the standard update (W = H A^-1 H^T rebuilt by half-solves, a solve per correction) against the
// fast one (W_J once per step, W = C W_J C^T by 3x3 blocks, proximity points moved without solves).
// The body is a block (cells c x c/2 x c, 10 x 5 x 10 cm) resting under gravity on a plate whose
// extent takes `--contacts` of its bottom vertices, so the contact count is fixed while the mesh
// grows. Timings come from the stage itself (ContactResult); each configuration steps the same
// scene, and the two schemes' states are compared (they agree to round-off).
#include "bench/contact_benchmark.h"

#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>

#include "engine/parallel/statistics.h"
#include "engine/scene/scene.h"
#include "engine/sim/integrator.h"

namespace softbody::bench {
namespace {

nlohmann::json block_scene(int cells, int contacts, const std::string& scheme, int newton) {
  const double size = 0.1, spacing = size / cells;
  // (2k + 1)^2 bottom vertices around the centre vertex (c is even) lie on the plate.
  const auto k = std::lround((std::sqrt(static_cast<double>(contacts)) - 1) / 2);
  const double half = spacing * static_cast<double>(k) + spacing / 4;
  return {
      {"name", "contact-block"},
      {"mesh", {{"box", {{"cells", {cells, cells / 2, cells}}, {"size", {size, size / 2, size}}}}}},
      {"material", {{"model", "stvk-edge"}, {"E", 1e5}, {"nu", 0.3}, {"density", 1000}}},
      {"dt", 0.01},
      {"contact", {{"scheme", scheme}, {"newton_iterations", newton}, {"pgs_iterations", 30}}},
      {"obstacles",
       {{{"type", "plate"},
         {"normal", {0, 1, 0}},
         {"position", {size / 2, 0, size / 2}},
         {"half_extent", {half, half}},
         {"contact", {{"model", "constraint"}, {"mu", 0.5}}}}}}};
}

}  // namespace

void add_contact_benchmark(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "contact", "standard against fast constraint update per Newton iteration (seed 002)");
  struct Args {
    std::vector<int> cells{22, 26};
    int contacts = 441, steps = 6, newton = 5;
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("--cells", args->cells, "block resolutions c (c x c/2 x c cells)")
      ->capture_default_str();
  cmd->add_option("--contacts", args->contacts, "bottom vertices on the plate (an odd square)")
      ->capture_default_str();
  cmd->add_option("--steps", args->steps, "steps per configuration")->capture_default_str();
  cmd->add_option("--newton-iterations", args->newton, "m, re-linearizations per step")
      ->capture_default_str();
  cmd->add_flag("--json", args->json, "print JSON (the only output format)");
  cmd->callback([args] {
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (int cells : args->cells) {
      nlohmann::ordered_json row;
      std::vector<Vec3Array> finals;
      for (const char* scheme : {"standard", "fast"}) {
        const Scene scene = build_scene(block_scene(cells, args->contacts, scheme, args->newton),
                                        "contact-block", "");
        const std::unique_ptr<Integrator> integrator = make_integrator(scene.model);
        SimulationState state = rest_state(*scene.model);
        std::vector<double> build, per_iteration, rebuild, pgs, correction, total, step, contacts;
        for (int i = 0; i < args->steps; ++i) {
          const StepStats stats = integrator->step(state);
          const ContactResult& c = *integrator->contact_result();
          if (i == 0) continue;  // the first step's analysis and warm-up
          const double m = std::max(1, c.newton_iterations);
          build.push_back(c.build_ms);
          rebuild.push_back(c.rebuild_ms / m);
          pgs.push_back(c.pgs_ms / m);
          correction.push_back(c.correction_ms / m);
          per_iteration.push_back((c.rebuild_ms + c.pgs_ms + c.correction_ms) / m);
          total.push_back(c.build_ms + c.rebuild_ms + c.pgs_ms + c.correction_ms);
          step.push_back(stats.step_ms);
          contacts.push_back(static_cast<double>(c.points.size()));
        }
        row["vertices"] = scene.model->topology->num_vertices();
        row["contacts"] = percentile(contacts, 0.5);
        row[scheme] = {{"build_ms", percentile(build, 0.5)},
                       {"rebuild_ms", percentile(rebuild, 0.5)},
                       {"pgs_ms", percentile(pgs, 0.5)},
                       {"correction_ms", percentile(correction, 0.5)},
                       {"newton_iteration_ms", percentile(per_iteration, 0.5)},
                       {"contact_stage_ms", percentile(total, 0.5)},
                       {"step_ms", percentile(step, 0.5)}};
        finals.push_back(state.p);
      }
      double largest = 0;
      for (size_t v = 0; v < finals[0].size(); ++v)
        largest = std::max(largest, (finals[0][v] - finals[1][v]).norm());
      row["schemes_max_difference_m"] = largest;
      row["speedup_per_newton_iteration"] = row["standard"]["newton_iteration_ms"].get<double>() /
                                            row["fast"]["newton_iteration_ms"].get<double>();
      row["speedup_contact_stage"] = row["standard"]["contact_stage_ms"].get<double>() /
                                     row["fast"]["contact_stage_ms"].get<double>();
      rows.push_back(row);
    }
    nlohmann::ordered_json out;
    out["benchmark"] = "contact";
    out["newton_iterations"] = args->newton;
    out["steps"] = args->steps;
    out["rows"] = rows;
    std::cout << out.dump(2) << '\n';
  });
}

}  // namespace softbody::bench
