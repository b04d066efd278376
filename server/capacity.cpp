#include "server/capacity.h"

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

Capacity measure_capacity(const std::vector<std::shared_ptr<Session>>& sessions,
                          const CapacityLimits& limits, bool draining) {
  Capacity c;
  c.sessions = static_cast<int>(sessions.size());
  c.max_sessions = limits.max_sessions;
  c.capacity_cores = limits.max_cpu_load * limits.cores;
  c.draining = draining;
  int measured = 0, unmeasured = 0;
  double measured_load = 0, min_rtf = 0;
  for (const auto& s : sessions) {
    if (!s->running) continue;
    ++c.running;
    const double load = s->cpu_load();
    if (load < 0) {
      ++unmeasured;
    } else {
      ++measured;
      measured_load += load;
    }
    const auto state = s->latest();
    if (state && state->real_time_factor > 0)
      min_rtf = min_rtf > 0 ? std::min(min_rtf, state->real_time_factor) : state->real_time_factor;
  }
  const double mean = measured > 0 ? measured_load / measured : 0;
  c.load_cores = measured_load + unmeasured * mean;
  c.min_real_time_factor = min_rtf;
  const int by_count = std::max(0, c.max_sessions - c.sessions);
  // By CPU: how many more sessions like the running ones fit under the limit.
  const int by_cpu =
      mean > 0 ? std::max(0, static_cast<int>(std::floor((c.capacity_cores - c.load_cores) / mean)))
               : by_count;
  c.free_sessions = draining ? 0 : std::min(by_count, by_cpu);
  if (draining) {
    c.refusal = "the server is shutting down";
  } else if (c.sessions >= c.max_sessions) {
    c.refusal = "the server holds its maximum of " + std::to_string(c.max_sessions) +
                " sessions (--max-sessions)";
  } else if (c.load_cores >= c.capacity_cores) {
    c.refusal = "the server's CPU is full: its sessions take " + format(c.load_cores) + " of " +
                std::to_string(limits.cores) + " cores (limit " + format(limits.max_cpu_load) +
                " x " + std::to_string(limits.cores) + ", --max-cpu-load)";
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
