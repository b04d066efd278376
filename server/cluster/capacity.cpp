#include "server/cluster/capacity.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace softbody::server {
namespace {

std::string format(double v, int digits = 3) {
  std::ostringstream out;
  out.precision(digits);
  out << v;
  return out.str();
}

void gauge(std::string& out, const std::string& name, const std::string& help, double value) {
  out += "# HELP " + name + " " + help + "\n# TYPE " + name + " gauge\n" + name + " " +
         format(value, 6) + "\n";
}

}  // namespace

double SceneCostBook::estimate(const std::string& key) const {
  const auto found = cost_.find(key);
  return found == cost_.end() ? -1 : found->second;
}

Capacity measure_capacity(const std::vector<SessionLoad>& sessions, const CapacityLimits& limits,
                          bool draining, bool was_cpu_full, SceneCostBook& book) {
  Capacity c;
  c.sessions = static_cast<int>(sessions.size());
  c.max_sessions = limits.max_sessions;
  c.cpu_admission = limits.max_cpu_load > 0;
  c.capacity_cores = c.cpu_admission ? limits.max_cpu_load * limits.cores : limits.cores;
  c.draining = draining;
  int measured = 0;
  double measured_load = 0, min_rtf = 0;
  for (const SessionLoad& s : sessions) {
    if (!s.running) continue;
    ++c.running;
    if (s.load >= 0) {
      ++measured;
      measured_load += s.load;
      book.learn(s.cost_key, s.load);
    }
    if (s.real_time_factor > 0)
      min_rtf = min_rtf > 0 ? std::min(min_rtf, s.real_time_factor) : s.real_time_factor;
  }
  const double mean = measured > 0 ? measured_load / measured : 0;
  c.load_cores = measured_load;
  for (const SessionLoad& s : sessions) {
    if (!s.running || s.load >= 0) continue;
    const double estimate = book.estimate(s.cost_key);
    c.load_cores += estimate >= 0 ? estimate : mean;
  }
  c.min_real_time_factor = min_rtf;
  const int by_count = std::max(0, c.max_sessions - c.sessions);
  // By CPU: how many more sessions like the running ones fit under the limit.
  const double per_session = c.running > 0 ? c.load_cores / c.running : 0;
  const int by_cpu =
      c.cpu_admission && per_session > 0
          ? std::max(0,
                     static_cast<int>(std::floor((c.capacity_cores - c.load_cores) / per_session)))
          : by_count;
  const double accept_below =
      was_cpu_full ? (1 - limits.hysteresis) * c.capacity_cores : c.capacity_cores;
  c.cpu_full = c.cpu_admission && c.load_cores >= accept_below;
  c.free_sessions = draining || c.cpu_full ? 0 : std::min(by_count, by_cpu);
  if (draining) {
    c.refusal = "the server is shutting down";
  } else if (c.sessions >= c.max_sessions) {
    c.refusal = "the server holds its maximum of " + std::to_string(c.max_sessions) +
                " sessions (--max-sessions)";
  } else if (c.cpu_full) {
    c.refusal = "the server's CPU is full: its sessions take " + format(c.load_cores) + " of " +
                std::to_string(limits.cores) + " cores (limit " + format(limits.max_cpu_load) +
                " x " + std::to_string(limits.cores) + ", --max-cpu-load" +
                (was_cpu_full ? "; it accepts again below " + format(accept_below) + " cores"
                              : std::string()) +
                ")";
  }
  return c;
}

void write_capacity_gauges(const Capacity& c, std::string& out) {
  gauge(out, "softbody_capacity_sessions", "Most sessions this host takes (--max-sessions).",
        c.max_sessions);
  gauge(out, "softbody_free_sessions",
        "More sessions like the running ones that fit, by count and by CPU.", c.free_sessions);
  gauge(out, "softbody_load_cores", "Cores the running sessions' real-time steps take.",
        c.load_cores);
  gauge(out, "softbody_capacity_cores", "Cores sessions may take (workers x --max-cpu-load).",
        c.capacity_cores);
  gauge(out, "softbody_accepting", "1 while new sessions are admitted (readiness).",
        c.accepting() ? 1 : 0);
  gauge(out, "softbody_min_real_time_factor",
        "Lowest real-time factor over running sessions (0: none measured).",
        c.min_real_time_factor);
}

}  // namespace softbody::server
