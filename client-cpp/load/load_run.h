// The load tester's engine (softbody-load, docs/load-testing.md): creates sessions, subscribes,
// runs scripted haptic command streams at a fixed rate, measures what real clients would see and
// returns one JSON report.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace softbody::client {

struct LoadOptions {
  std::string server = "127.0.0.1:50051";
  std::string bearer_token;  // for servers that require one (docs/security.md)
  std::string tls_ca_file;   // TLS to a server started with --tls-cert
  std::string scene = "default";
  std::vector<std::string> overrides;
  int sessions = 1;
  int subscribers_per_session = 1;
  int haptic_per_session = 1;
  double rate_hz = 1000;       // tool commands per second per haptic client
  double frame_rate_hz = 60;   // requested subscriber frame rate
  double error_bound = 1e-4;   // subscriber frame error bound (of the diagonal)
  double duration_s = 10;      // measured
  double warmup_s = 1;         // before measuring
  bool keep_sessions = false;  // do not delete the sessions at the end
};

// Pass/fail limits for CI smoke runs; a negative value disables a check.
struct LoadThresholds {
  double max_reply_p99_ms = -1;
  long max_replies_missing = -1;
  long max_errors = -1;
  double min_real_time_factor = -1;
  double min_frame_ratio = -1;  // frames received / expected
};

// Runs the load; `progress` gets a line per phase. Throws std::runtime_error when the run cannot
// start (server unreachable, session creation refused).
nlohmann::json run_load(const LoadOptions& options, std::ostream& progress);

// The thresholds the report crosses, one message each (empty: all met).
std::vector<std::string> check_thresholds(const nlohmann::json& report,
                                          const LoadThresholds& thresholds);

}  // namespace softbody::client
