// Seed 002's motivating case (its Fig. 2): a grasped object turned quickly, whose contact normals
// swing within a step. Two capsule fingers (radius 3 mm, along z) squeeze a 2 cm soft cube by
// 0.5 mm each and turn rigidly about the cube's centre at `omega` (each finger circles the centre
// and spins at omega, as a gripper's fingers do). For m = 1, 2, 5, 10 re-linearizations per step
// at dt, and a reference with m = 1 at dt / 10: the deepest penetration at the steps' ends, the
// shape error (mean vertex distance from the reference's at the end, over the cube's size: how far
// the grasped body's frame and shape are off) and the slip (the cube's turn behind the fingers' at
// the end, from the vertices' mean angle about the centre).
#include "bench/rotating_grasp_benchmark.h"

#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>
#include <numbers>

#include "engine/scene/scene.h"
#include "engine/sim/integrator.h"

namespace softbody::bench {
namespace {

constexpr double kSize = 0.02, kRadius = 0.003, kSqueeze = 0.0005;

nlohmann::json finger(double side, double omega) {
  // Finger centre at angle 0: (c + side (size/2 + radius - squeeze), c, c); turned about c.
  const double c = kSize / 2, arm = side * (kSize / 2 + kRadius - kSqueeze);
  const std::string a = std::to_string(omega) + "*t";
  return {{"type", "capsule"},
          {"radius", kRadius},
          {"half_length", kSize},
          {"axis", {0, 0, 1}},
          {"spin", {0, 0, omega}},
          {"trajectory",
           {{"piecewise",
             {{{"from", 0},
               {"to", 100},
               {"position",
                {std::to_string(c) + "+" + std::to_string(arm) + "*cos(" + a + ")",
                 std::to_string(c) + "+" + std::to_string(arm) + "*sin(" + a + ")",
                 std::to_string(c)}}}}}}},
          {"contact", {{"model", "constraint"}, {"mu", 0.8}}}};
}

nlohmann::json scene(double omega, double dt, int m) {
  return {{"name", "rotating-grasp"},
          {"mesh", {{"box", {{"cells", {4, 4, 4}}, {"size", {kSize, kSize, kSize}}}}}},
          {"material", {{"model", "stvk-edge"}, {"E", 5e4}, {"nu", 0.3}, {"density", 1000}}},
          {"damping", {{"beta", 0.002}}},
          {"gravity", {0, 0, 0}},
          {"dt", dt},
          {"contact", {{"scheme", "fast"}, {"newton_iterations", m}}},
          {"obstacles", {finger(-1, omega), finger(1, omega)}}};
}

struct Run {
  Vec3Array final;
  double penetration = 0, seconds = 0;
  int failed = 0;
};

Run run(double omega, double dt, int m, double duration) {
  const Scene s = build_scene(scene(omega, dt, m), "rotating-grasp", "");
  const std::unique_ptr<Integrator> integrator = make_integrator(s.model);
  SimulationState state = rest_state(*s.model);
  Run r;
  const auto steps = static_cast<int>(std::lround(duration / dt));
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < steps; ++i) {
    const StepStats stats = integrator->step(state);
    r.penetration = std::max(r.penetration, stats.max_penetration);
    r.failed += stats.failed;
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.final = state.p;
  return r;
}

// The cube's turn about its centre's z axis: the mean angle by which the vertices moved about the
// centroid (rest -> now), in (-pi, pi].
double turn(const Vec3Array& rest, const Vec3Array& now) {
  Vec3 c0 = Vec3::Zero(), c1 = Vec3::Zero();
  for (size_t i = 0; i < rest.size(); ++i) c0 += rest[i], c1 += now[i];
  c0 /= static_cast<double>(rest.size());
  c1 /= static_cast<double>(rest.size());
  double sin_sum = 0, cos_sum = 0;
  for (size_t i = 0; i < rest.size(); ++i) {
    const Vec3 a = rest[i] - c0, b = now[i] - c1;
    sin_sum += a.x() * b.y() - a.y() * b.x();
    cos_sum += a.x() * b.x() + a.y() * b.y();
  }
  return std::atan2(sin_sum, cos_sum);
}

// How far the cube's turn fell behind the fingers' (negative: ahead), modulo full turns.
double slip(double fingers, double cube) {
  return std::remainder(fingers - cube, 2 * std::numbers::pi);
}

}  // namespace

void add_rotating_grasp_benchmark(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "rotating-grasp", "penetration, frame error and slip of a turned grasp for m = 1, 2, 5, 10");
  struct Args {
    std::vector<double> omegas{2, 5, 10};
    std::vector<int> ms{1, 2, 5, 10};
    double dt = 0.01, duration = 0.3;
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("--omega", args->omegas, "turning rates [rad/s]")->capture_default_str();
  cmd->add_option("--m", args->ms, "re-linearizations per step")->capture_default_str();
  cmd->add_option("--dt", args->dt, "step [s]")->capture_default_str();
  cmd->add_option("--duration", args->duration, "simulated time [s]")->capture_default_str();
  cmd->add_flag("--json", args->json, "print JSON (the only output format)");
  cmd->callback([args] {
    const Scene base = build_scene(scene(1, args->dt, 1), "rotating-grasp", "");
    const Vec3Array& rest = base.model->rest;
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (double omega : args->omegas) {
      const Run reference = run(omega, args->dt / 10, 1, args->duration);
      const double fingers = omega * args->duration;
      nlohmann::ordered_json row{
          {"omega", omega},
          {"reference_penetration_m", reference.penetration},
          {"reference_slip_rad", slip(fingers, turn(rest, reference.final))}};
      nlohmann::ordered_json by_m = nlohmann::ordered_json::array();
      for (int m : args->ms) {
        const Run r = run(omega, args->dt, m, args->duration);
        by_m.push_back({{"m", m},
                        {"penetration_m", r.penetration},
                        {"shape_error", mean_distance(r.final, reference.final, kSize)},
                        {"slip_rad", slip(fingers, turn(rest, r.final))},
                        {"failed_steps", r.failed},
                        {"wall_s", r.seconds}});
      }
      row["runs"] = by_m;
      rows.push_back(row);
    }
    nlohmann::ordered_json out;
    out["benchmark"] = "rotating-grasp";
    out["dt"] = args->dt;
    out["duration"] = args->duration;
    out["rows"] = rows;
    std::cout << out.dump(2) << '\n';
  });
}

}  // namespace softbody::bench
