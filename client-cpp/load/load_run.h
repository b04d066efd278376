// The load tester's engine (softbody-load, docs/load-testing.md): creates sessions, subscribes,
// runs scripted haptic command streams at a fixed rate, measures what real clients would see and
// returns one JSON report.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "softbody/v1/interact.pb.h"

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
  double rate_hz = 1000;  // tool commands per second per haptic client
  // How the scripted tools press (ToolCommand.contact_model). Penalty by default, what clients
  // before CONTACT_MODEL_AUTO send, so capacity figures compare across releases; AUTO is what the
  // browser and softbody-client send today.
  v1::ContactModel contact_model = v1::CONTACT_MODEL_PENALTY;
  double frame_rate_hz = 60;   // requested subscriber frame rate
  double error_bound = 1e-4;   // subscriber frame error bound (of the diagonal)
  double duration_s = 10;      // measured (per stage with a ramp)
  double warmup_s = 1;         // before measuring (per stage)
  bool keep_sessions = false;  // do not delete the sessions at the end
  double deadline_s = 0.005;   // a haptic tick whose newest force is older misses its deadline
  // Ramp-up: session counts measured in turn (sessions are added between stages); empty: one
  // stage of `sessions`.
  std::vector<int> ramp;
  double progress_interval_s = 1;  // the live progress line; 0: none
};

// Pass/fail limits for CI smoke runs; a negative value disables a check.
struct LoadThresholds {
  double max_reply_p99_ms = -1;
  long max_replies_missing = -1;
  long max_errors = -1;
  double min_real_time_factor = -1;
  double min_frame_ratio = -1;         // frames received / expected
  double max_deadline_miss_rate = -1;  // haptic ticks whose newest force is older than the deadline
};

// Runs the load; `progress` gets a line per phase and a live line each progress interval. Throws
// std::runtime_error when the run cannot start (server unreachable, first sessions refused). A
// single stage's report is flat; a ramp's is {"ramp", "stages": [one report per stage]}, a stage
// whose sessions were refused ending the ramp with {"sessions", "refused"}.
nlohmann::json run_load(const LoadOptions& options, std::ostream& progress);

}  // namespace softbody::client
