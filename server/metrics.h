// Server metrics in the Prometheus text exposition format (prometheus-cpp is not packaged for
// Debian 12, so this small registry is written here): counters, gauges and fixed-bucket
// histograms, updated lock-free from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace softbody::server {

class Histogram {
 public:
  explicit Histogram(std::vector<double> upper_bounds);
  void observe(double value);
  // Appends the _bucket, _sum and _count lines of metric `name`.
  void write(std::string& out, const std::string& name) const;

 private:
  std::vector<double> bounds_;
  std::vector<std::atomic<std::uint64_t>> counts_;  // one per bound, plus +Inf
  std::atomic<double> sum_{0};
  std::atomic<std::uint64_t> count_{0};
};

struct Metrics {
  std::atomic<std::uint64_t> sessions_created{0};
  std::atomic<std::uint64_t> sessions_expired{0};
  std::atomic<std::uint64_t> steps{0};
  std::atomic<std::uint64_t> rollbacks{0};
  std::atomic<std::uint64_t> failed_steps{0};
  std::atomic<std::uint64_t> tolerance_unmet_steps{0};
  std::atomic<std::uint64_t> factorizations{0};
  std::atomic<std::uint64_t> frames_sent{0};
  std::atomic<std::uint64_t> frames_dropped{0};
  std::atomic<std::uint64_t> frames_skipped{0};
  std::atomic<std::uint64_t> frame_bytes{0};
  std::atomic<std::uint64_t> tool_commands{0};
  std::atomic<std::uint64_t> tool_commands_rejected{0};
  std::atomic<std::uint64_t> model_relinearizations{0};
  std::atomic<std::uint64_t> requests_refused{0};
  std::atomic<std::uint64_t> websocket_connections{0};
  std::atomic<std::uint64_t> websocket_closed_malformed{0};
  std::atomic<std::uint64_t> websocket_force_replies_coalesced{0};
  std::atomic<std::uint64_t> interact_force_replies_coalesced{0};
  std::atomic<std::uint64_t> unauthenticated{0};    // requests without a valid token
  std::atomic<std::uint64_t> permission_denied{0};  // requests beyond the caller's role
  // Requests refused by a per-caller quota (docs/security.md), by quota.
  std::atomic<std::uint64_t> quota_max_sessions{0}, quota_max_upload_vertices{0},
      quota_max_tool_rate_hz{0}, quota_max_subscriptions{0};
  Histogram step_seconds{{0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1}};
  Histogram solve_residual{{1e-10, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1}};
  Histogram real_time_factor{{0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 1.01, 1.05, 1.25, 2}};
  Histogram haptic_reply_seconds{
      {0.00001, 0.00002, 0.00005, 0.0001, 0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01}};

  // Gauges read when scraped (sessions, subscribers, tools).
  std::function<void(std::string&)> write_gauges;

  std::string exposition() const;

  // A state frame sent (gRPC stream or WebSocket), after steps not sent: `dropped` (the
  // subscriber was slower) and `skipped` (its requested rate).
  void count_frame(std::uint32_t dropped, std::uint32_t skipped, std::size_t bytes) {
    frames_sent.fetch_add(1, std::memory_order_relaxed);
    frames_dropped.fetch_add(dropped, std::memory_order_relaxed);
    frames_skipped.fetch_add(skipped, std::memory_order_relaxed);
    frame_bytes.fetch_add(bytes, std::memory_order_relaxed);
  }
};

}  // namespace softbody::server
