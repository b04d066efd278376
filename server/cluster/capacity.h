// How full a host is: sessions, the CPU their real-time stepping takes, their real-time factor and
// an estimate of how many more sessions fit. Admission (--max-sessions, --max-cpu-load), readiness
// (/readyz), the status endpoint (/status, GetServerStatus) and the capacity metrics all read it,
// so an allocator, a load balancer and an operator see the same numbers.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace softbody::server {

struct CapacityLimits {
  int max_sessions = 64;
  // New sessions are refused once the running sessions take this share of the worker cores;
  // 0 turns CPU admission off (sessions are then limited by count only).
  double max_cpu_load = 0.9;
  int cores = 1;  // the scheduler's worker threads
  // A host that refused for CPU accepts again only once its load is this share below the limit,
  // so readiness does not flap while the load hovers at the limit.
  double hysteresis = 0.1;
};

// One session as admission sees it.
struct SessionLoad {
  bool running = false;
  double load = -1;      // cores its stepping takes (StepCostMeter); negative: not measured yet
  std::string cost_key;  // the scene it runs, for the cost book
  double real_time_factor = 0;
};

// What sessions of each scene cost on this host, learned from the measured ones: a session not
// measured yet (just created) counts as the last measured session of its scene.
class SceneCostBook {
 public:
  void learn(const std::string& key, double load) { cost_[key] = load; }
  // Negative when no session of the scene was measured on this host.
  double estimate(const std::string& key) const;

 private:
  std::map<std::string, double> cost_;
};

struct Capacity {
  int sessions = 0, running = 0, max_sessions = 0;
  // Cores the running sessions' steps take (CPU seconds per simulated second, summed); a session
  // not measured yet counts as its scene's cost on this host, else as the mean of the measured.
  double load_cores = 0;
  double capacity_cores = 0;        // cores x max_cpu_load (cores when CPU admission is off)
  bool cpu_admission = true;        // false with --max-cpu-load 0
  bool cpu_full = false;            // refusing for CPU (kept until the load drops below hysteresis)
  double min_real_time_factor = 0;  // over running sessions that have a measure (0: none)
  int free_sessions = 0;            // more sessions that fit, by count and by CPU
  bool draining = false;
  std::string refusal;  // why a new session would be refused; empty while accepting
  bool accepting() const { return refusal.empty(); }
};

// `was_cpu_full`: the previous measure's cpu_full (the hysteresis's memory). Teaches `book` the
// cost of every measured session.
Capacity measure_capacity(const std::vector<SessionLoad>& sessions, const CapacityLimits& limits,
                          bool draining, bool was_cpu_full, SceneCostBook& book);

// Prometheus gauges: softbody_capacity_sessions, softbody_free_sessions, softbody_load_cores,
// softbody_capacity_cores, softbody_accepting, softbody_min_real_time_factor.
void write_capacity_gauges(const Capacity& c, std::string& out);

}  // namespace softbody::server
