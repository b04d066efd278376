// How full a host is: sessions, the CPU their real-time stepping takes, their real-time factor and
// an estimate of how many more sessions fit. Admission (--max-sessions, --max-cpu-load), readiness
// (/readyz), the status endpoint (/status, GetServerStatus) and the capacity metrics all read it,
// so an allocator, a load balancer and an operator see the same numbers.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "server/session.h"

namespace softbody::server {

struct CapacityLimits {
  int max_sessions = 64;
  // New sessions are refused once the running sessions take this share of the worker cores.
  double max_cpu_load = 0.9;
  int cores = 1;  // the scheduler's worker threads
};

struct Capacity {
  int sessions = 0, running = 0, max_sessions = 0;
  // Cores the running sessions' steps take (step time / dt summed); sessions that have not
  // stepped yet count as the mean of those that have.
  double load_cores = 0;
  double capacity_cores = 0;        // cores x max_cpu_load
  double min_real_time_factor = 0;  // over running sessions that have a measure (0: none)
  int free_sessions = 0;            // more sessions that fit, by count and by CPU
  bool draining = false;
  std::string refusal;  // why a new session would be refused; empty while accepting
  bool accepting() const { return refusal.empty(); }
};

Capacity measure_capacity(const std::vector<std::shared_ptr<Session>>& sessions,
                          const CapacityLimits& limits, bool draining);

// Prometheus gauges: softbody_capacity_sessions, softbody_free_sessions, softbody_load_cores,
// softbody_capacity_cores, softbody_accepting, softbody_min_real_time_factor.
void write_capacity_gauges(const Capacity& c, std::string& out);

}  // namespace softbody::server
