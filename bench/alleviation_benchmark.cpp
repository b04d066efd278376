// Inversion alleviation's cost: the scene's body at rest with random velocities (components
// uniform in [-speed, speed] m/s, seed 1, as the scene key initial_velocity) large enough that the
// step's prediction inverts elements; alleviate_inversions timed repeatedly on the same start, its
// median divided by the tetrahedra and the sweeps it ran.
#include "bench/alleviation_benchmark.h"

#include <iostream>
#include <nlohmann/json.hpp>

#include "bench/timing.h"
#include "engine/parallel/parallel.h"
#include "engine/scene/scene.h"
#include "engine/sim/random_velocities.h"
#include "engine/sim/stages/inversion_alleviation.h"

namespace softbody::bench {

void add_alleviation_benchmark(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "alleviation", "inversion alleviation's cost per tetrahedron and sweep (issue 23)");
  struct Args {
    std::string scene;
    std::vector<std::string> sets;
    double speed = 5;
    int sweeps = 30;
    double min_seconds = 1;
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("--scene", args->scene, "scene file")->required();
  cmd->add_option("--set", args->sets, "scene override KEY=VALUE (repeatable)");
  cmd->add_option("--speed", args->speed, "random velocity components up to this [m/s]")
      ->capture_default_str();
  cmd->add_option("--sweeps", args->sweeps, "at most this many sweeps")->capture_default_str();
  cmd->add_option("--min-seconds", args->min_seconds, "time at least this long")
      ->capture_default_str();
  cmd->add_flag("--json", args->json, "print JSON (the only output format)");
  cmd->callback([args] {
    Scene scene = load_scene(args->scene, args->sets);
    const SimulationModel& model = *scene.model;
    SimulationState start = rest_state(model);
    start.v = random_velocities(start.v.size(), args->speed, 1, model.fixed);
    const double h = model.options.dt;
    AlleviationResult last;
    const TimingStats t = time_repeatedly(
        [&] {
          Vec3Array v = start.v;
          last = alleviate_inversions(model, h, start.t + h, args->sweeps, {}, start.p, v);
        },
        args->min_seconds, 5);
    const double tets = static_cast<double>(model.topology->num_tets());
    nlohmann::ordered_json j;
    j["benchmark"] = "alleviation";
    j["scene"] = scene.name;
    j["tetrahedra"] = model.topology->num_tets();
    j["dt"] = h;
    j["speed"] = args->speed;
    j["inverted_before"] = last.inverted_before;
    j["inverted_after"] = last.inverted_after;
    j["sweeps"] = last.sweeps;
    j["runs"] = t.runs;
    j["median_ms"] = 1e3 * t.median_s;
    // A call counts its sweeps plus the first prediction's inversion count (one more pass).
    j["us_per_tet_per_sweep"] = 1e6 * t.median_s / (tets * (last.sweeps + 1));
    // Seed 004's Fig. 7 axis: the elements still inverted at the prediction after k sweeps,
    // k = 0 .. sweeps (each from the same start; stops early once none is left).
    nlohmann::ordered_json by_sweeps = nlohmann::ordered_json::array();
    for (int k = 0; k <= args->sweeps; ++k) {
      Vec3Array v = start.v;
      const AlleviationResult r = alleviate_inversions(model, h, start.t + h, k, {}, start.p, v);
      by_sweeps.push_back(k == 0 ? r.inverted_before : r.inverted_after);
      if (r.inverted_after == 0 && k > 0) break;
    }
    j["inverted_after_sweeps"] = by_sweeps;
    std::cout << j.dump() << '\n';
  });
}

}  // namespace softbody::bench
