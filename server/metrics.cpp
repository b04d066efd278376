#include "server/metrics.h"

#include <cstdio>

namespace softbody::server {
namespace {

std::string number(double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.9g", v);
  return buffer;
}

void counter(std::string& out, const char* name, const char* help,
             const std::atomic<std::uint64_t>& value) {
  out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " counter\n" + name +
         " " + std::to_string(value.load(std::memory_order_relaxed)) + "\n";
}

void histogram(std::string& out, const char* name, const char* help, const Histogram& h) {
  out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " histogram\n";
  h.write(out, name);
}

}  // namespace

Histogram::Histogram(std::vector<double> upper_bounds)
    : bounds_(std::move(upper_bounds)), counts_(bounds_.size() + 1) {}

void Histogram::observe(double value) {
  size_t i = 0;
  while (i < bounds_.size() && value > bounds_[i]) ++i;
  counts_[i].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(value, std::memory_order_relaxed);
  count_.fetch_add(1, std::memory_order_relaxed);
}

void Histogram::write(std::string& out, const std::string& name) const {
  std::uint64_t cumulative = 0;
  for (size_t i = 0; i <= bounds_.size(); ++i) {
    cumulative += counts_[i].load(std::memory_order_relaxed);
    const std::string le = i < bounds_.size() ? number(bounds_[i]) : "+Inf";
    out += name + "_bucket{le=\"" + le + "\"} " + std::to_string(cumulative) + "\n";
  }
  out += name + "_sum " + number(sum_.load(std::memory_order_relaxed)) + "\n";
  out += name + "_count " + std::to_string(count_.load(std::memory_order_relaxed)) + "\n";
}

std::string Metrics::exposition() const {
  std::string out;
  if (write_gauges) write_gauges(out);
  counter(out, "softbody_sessions_created_total", "Sessions created.", sessions_created);
  counter(out, "softbody_sessions_expired_total", "Sessions deleted for being idle.",
          sessions_expired);
  counter(out, "softbody_steps_total", "Simulation steps taken.", steps);
  counter(out, "softbody_rollbacks_total", "Step attempts rolled back.", rollbacks);
  counter(out, "softbody_failed_steps_total", "Steps whose every attempt was rolled back.",
          failed_steps);
  counter(out, "softbody_tolerance_unmet_steps_total",
          "Steps whose linear solves ended above their relative-residual tolerance.",
          tolerance_unmet_steps);
  counter(out, "softbody_factorizations_total",
          "Sparse factorizations of step matrices (reused across steps as preconditioners).",
          factorizations);
  counter(out, "softbody_frames_sent_total", "State frames sent to subscribers.", frames_sent);
  counter(out, "softbody_frames_dropped_total",
          "States a subscriber missed because it was slower than its session (newest wins).",
          frames_dropped);
  counter(out, "softbody_frames_skipped_total",
          "States not sent because of a subscriber's requested max_rate_hz.", frames_skipped);
  counter(out, "softbody_frame_bytes_total", "Encoded position bytes sent.", frame_bytes);
  counter(out, "softbody_tool_commands_total", "Tool commands answered.", tool_commands);
  counter(out, "softbody_tool_commands_rejected_total", "Tool commands with invalid values.",
          tool_commands_rejected);
  counter(out, "softbody_coupling_relinearizations_total",
          "Tool commands outside the coupling model's validity radius, answered by a new model.",
          model_relinearizations);
  counter(out, "softbody_requests_refused_total", "Requests refused by a limit.", requests_refused);
  counter(out, "softbody_websocket_connections_total", "Browser gateway connections accepted.",
          websocket_connections);
  counter(out, "softbody_websocket_closed_malformed_total",
          "Browser gateway connections closed for a malformed message.",
          websocket_closed_malformed);
  counter(out, "softbody_websocket_force_replies_coalesced_total",
          "Force replies replaced by a newer one before a slow connection took them.",
          websocket_force_replies_coalesced);
  counter(out, "softbody_interact_force_replies_coalesced_total",
          "Interact force replies replaced by a newer one while the stream's write was in flight.",
          interact_force_replies_coalesced);
  counter(out, "softbody_unauthenticated_total", "Requests refused for a missing or bad token.",
          unauthenticated);
  counter(out, "softbody_permission_denied_total", "Requests refused beyond the caller's role.",
          permission_denied);
  out +=
      "# HELP softbody_quota_refusals_total Requests refused by a per-caller quota.\n"
      "# TYPE softbody_quota_refusals_total counter\n";
  for (const auto& [quota, value] : {std::pair{"max_sessions", &quota_max_sessions},
                                     std::pair{"max_upload_vertices", &quota_max_upload_vertices},
                                     std::pair{"max_tool_rate_hz", &quota_max_tool_rate_hz},
                                     std::pair{"max_subscriptions", &quota_max_subscriptions}})
    out += std::string("softbody_quota_refusals_total{quota=\"") + quota + "\"} " +
           std::to_string(value->load()) + "\n";
  histogram(out, "softbody_step_duration_seconds", "Wall-clock time of a simulation step.",
            step_seconds);
  histogram(out, "softbody_solve_relative_residual",
            "Largest relative residual |b - A x| / |b| of each step's linear solves.",
            solve_residual);
  histogram(out, "softbody_real_time_factor", "Per-step real-time factor of sessions.",
            real_time_factor);
  histogram(out, "softbody_haptic_reply_seconds",
            "Server time from receiving a tool command to sending its force reply.",
            haptic_reply_seconds);
  return out;
}

}  // namespace softbody::server
