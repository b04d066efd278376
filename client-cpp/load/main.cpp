// softbody-load: drives a softbody-server as real clients do and prints a summary table, or with
// --json one JSON report (docs/load-testing.md). Exit status: 0 when every threshold holds, 2 when
// one is crossed, 1 when the run could not start.
#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>

#include "client-cpp/cli/command_line.h"
#include "client-cpp/cli/security_flags.h"
#include "client-cpp/client/contact_model_names.h"
#include "client-cpp/load/load_report.h"
#include "client-cpp/load/load_run.h"

int main(int argc, char** argv) {
  using namespace softbody::client;
  LoadOptions o;
  LoadThresholds t;
  bool json_only = false;
  CLI::App app{"softbody-load: load test a softbody-server through its gRPC API"};
  app.add_option("--server", o.server,
                 "server address; a comma-separated list names other hosts of the cluster, where "
                 "the clients go on when one is drained (sessions restored from the store; "
                 "default: the SOFTBODY_SERVER environment variable, else this)")
      ->capture_default_str()
      ->envname("SOFTBODY_SERVER");
  SecurityFlags security;
  add_security_flags(app, security);
  app.add_option("--scene", o.scene, "scene of every session (name or .json file)")
      ->capture_default_str();
  app.add_option("--set", o.overrides,
                 "scene override for every session, KEY=VALUE, e.g. dt=0.01 or /dt=0.01 (a dotted "
                 "path or a JSON pointer; numbers index arrays; repeatable)");
  app.add_option("--sessions", o.sessions, "sessions to create")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  app.add_option("--subscribers-per-session", o.subscribers_per_session, "state subscribers")
      ->capture_default_str()
      ->check(CLI::Range(0, 1000));
  app.add_option("--haptic-per-session", o.haptic_per_session, "haptic command streams")
      ->capture_default_str()
      ->check(CLI::Range(0, 100));
  app.add_option_function<std::string>(
         "--contact",
         [&o](const std::string& model) {
           o.contact_model = *softbody::client::contact_model_named(model);
         },
         "how the scripted tools press: penalty (default, as clients before auto), auto (what "
         "the browser and softbody-client send: constraint where the session's step solves it) "
         "or constraint (friction 0.3 for both)")
      ->default_str("penalty")
      ->check(CLI::IsMember(softbody::client::contact_model_names()));
  app.add_option("--rate", o.rate_hz, "tool commands per second per haptic stream [Hz]")
      ->capture_default_str()
      ->check(CLI::Range(1.0, 10000.0));
  app.add_option("--frame-rate", o.frame_rate_hz, "requested subscriber frame rate [Hz]")
      ->capture_default_str()
      ->check(CLI::Range(0.1, 1000.0));
  app.add_option("--error-bound", o.error_bound, "frame error bound (fraction of the diagonal)")
      ->capture_default_str();
  app.add_option("--duration", o.duration_s, "measured seconds")
      ->capture_default_str()
      ->check(CLI::Range(0.1, 86400.0));
  app.add_option("--warmup", o.warmup_s, "seconds before measuring")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 600.0));
  app.add_option("--ramp", o.ramp,
                 "ramp up: measure these session counts in turn, e.g. --ramp 4,8,16 (sessions are "
                 "added between stages; the report has one entry per stage and, with thresholds, "
                 "the capacity)")
      ->delimiter(',')
      ->check(CLI::Range(1, 1000));
  double deadline_ms = 1e3 * o.deadline_s;
  app.add_option("--deadline-ms", deadline_ms,
                 "a haptic tick whose newest force is older than this misses its deadline [ms]")
      ->capture_default_str()
      ->check(CLI::Range(0.1, 10000.0));
  app.add_flag("--keep-sessions", o.keep_sessions, "leave the sessions on the server");
  app.add_flag("--json", json_only,
               "print the JSON report instead of the summary table (and no progress lines)");
  std::string json_file;
  app.add_option("--json-file", json_file, "also write the JSON report to this file");
  app.add_option("--max-reply-p99-ms", t.max_reply_p99_ms, "fail when the reply p99 exceeds this");
  app.add_option("--max-replies-missing", t.max_replies_missing, "fail above this many");
  app.add_option("--max-errors", t.max_errors, "fail above this many errors");
  app.add_option("--min-rtf", t.min_real_time_factor, "fail when a session's RTF is below this");
  app.add_option("--min-frame-ratio", t.min_frame_ratio,
                 "fail when frames received / expected is below this");
  app.add_option("--max-deadline-miss-rate", t.max_deadline_miss_rate,
                 "fail when more than this fraction of haptic ticks miss the deadline");
  if (auto status = parse_command_line(app, argc, argv, "softbody-load")) return *status;
  o.deadline_s = 1e-3 * deadline_ms;
  if (json_only) o.progress_interval_s = 0;
  try {
    ClientOptions security_options;
    apply_security_flags(security, security_options);
    o.bearer_token = security_options.bearer_token;
    o.tls_ca_file = security_options.tls_ca_file;
  } catch (const std::exception& e) {
    std::cerr << "softbody-load: " << e.what() << '\n';
    return 1;
  }

  nlohmann::json report;
  try {
    std::ostream null_stream(nullptr);
    report = run_load(o, json_only ? null_stream : std::cerr);
  } catch (const std::exception& e) {
    std::cerr << "softbody-load: " << e.what() << '\n';
    return 1;
  }
  const auto crossed = apply_thresholds(report, t);
  if (!json_file.empty()) {
    std::ofstream file(json_file);
    file << report.dump(2) << '\n';
    if (!file) std::cerr << "softbody-load: --json-file " << json_file << ": cannot write\n";
  }
  if (json_only)
    std::cout << report.dump(2) << std::endl;
  else
    std::cout << format_report(report) << std::flush;
  for (const auto& c : crossed) std::cerr << "softbody-load: threshold crossed: " << c << '\n';
  return crossed.empty() ? 0 : 2;
}
