#include "server/server_flags.h"

#include <filesystem>

#include "server/auth/access_policy.h"

namespace softbody::server {

std::string default_scenes_dir() {
  if (std::filesystem::exists("scenes/default.json")) return "scenes";
  return SOFTBODY_SOURCE_DIR "/scenes";
}

std::string default_web_root() {
  if (std::filesystem::exists("client-web/dist/index.html")) return "client-web/dist";
  return SOFTBODY_SOURCE_DIR "/client-web/dist";
}

void add_server_flags(CLI::App& app, ServerFlags& f) {
  app.add_option("--grpc", f.grpc_address, "gRPC listen address (port 0: any free port; last wins)")
      ->capture_default_str()
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option("--http", f.http_address,
                 "HTTP listen address: browser client, WebSocket gateway (/ws), /healthz, /metrics")
      ->capture_default_str()
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  // ./run.sh passes --scenes and --preload before the user's arguments: the user's win.
  app.add_option("--scenes", f.scenes, "folder of shipped scene files (last wins)")
      ->capture_default_str()
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option("--preload", f.preload,
                 "scene to start a session of at startup ('' for none; the server refuses to "
                 "start when it cannot; last wins)")
      ->capture_default_str()
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option("--preload-audience", f.preload_audience,
                 "who besides instructors and admins may use the preloaded session, with "
                 "authentication on: watch=ROLE,steer=ROLE (ROLE: trainee, instructor, admin, "
                 "owner = nobody else)")
      ->capture_default_str()
      ->check([](const std::string& text) {
        try {
          softbody::server::parse_audience(text);
        } catch (const std::invalid_argument& e) {
          return std::string(e.what());
        }
        return std::string();
      });
  app.add_option("--max-sessions", f.manager.max_sessions, "most sessions at once")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  app.add_option("--max-cpu-load", f.manager.max_cpu_load,
                 "admission: refuse new sessions once running ones take this share of the worker "
                 "cores (the CPU time of their steps per simulated second, measured; accepts "
                 "again 10 % below); 0 turns CPU admission off")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 4.0));
  app.add_option("--snapshot-store", f.snapshot_store,
                 "folder (a shared volume in a cluster) where SIGTERM saves every session and "
                 "where a session this host does not hold is looked for; '' for none")
      ->capture_default_str();
  app.add_flag("--adopt-stored", f.adopt_stored,
               "at start, restore every session in --snapshot-store (otherwise each is restored "
               "when a client asks for it)");
  app.add_option("--advertise-grpc", f.advertise_grpc,
                 "host:port other hosts and clients reach this gRPC at (default: the listen "
                 "address, a wildcard host replaced by the host name)");
  app.add_option("--advertise-http", f.advertise_http,
                 "base URL browsers reach this HTTP port at (default: http://HOST:PORT like "
                 "--advertise-grpc)");
  app.add_option("--workers", f.scheduler_options.workers,
                 "simulation worker threads (0: one per core)")
      ->capture_default_str()
      ->check(CLI::Range(0, 1024));
  app.add_option("--threads-per-step", f.scheduler_options.threads_per_step,
                 "OpenMP threads inside one step")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  app.add_option("--idle-timeout", f.manager.idle_timeout_s,
                 "seconds before an idle session is deleted (0: never)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--max-vertices", f.manager.max_vertices, "largest mesh a session may have")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--max-subscribers", f.manager.session.max_subscribers,
                 "state streams per session")
      ->capture_default_str()
      ->check(CLI::Range(1, 10000));
  app.add_option("--max-tools", f.manager.session.max_tools, "Interact streams per session")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  app.add_option("--loosest-tolerance", f.manager.session.loosest_tolerance,
                 "accuracy floor: under load a session loosens its solve tolerance up to this "
                 "relative residual, never further")
      ->capture_default_str()
      ->check(CLI::Range(1e-12, 0.5));
  app.add_option("--max-message-mb", f.max_message_mb, "largest request message [MiB]")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  app.add_option("--web-root", f.web_root, "folder of the built browser client (npm run build)")
      ->capture_default_str();
  app.add_option("--allowed-origin", f.gateway_options.allowed_origins,
                 "browser origin allowed to open the WebSocket besides the server's own "
                 "(repeatable; '*' allows any)");
  app.add_option("--max-web-connections", f.gateway_options.max_connections,
                 "most browser (WebSocket) connections at once")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  app.add_option("--log-level", f.log_level, "trace, debug, info, warn, error or off (last wins)")
      ->capture_default_str()
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option(
      "--ready-file", f.ready_file,
      "write {\"grpc_port\", \"http_port\"} here once listening (for tests and scripts)");
  app.add_option("--shutdown-grace", f.shutdown_grace_s,
                 "seconds in-flight calls get to finish on SIGTERM")
      ->capture_default_str();
  add_auth_options(app, f.auth_line);
  app.add_option("--tls-cert", f.tls.certificate,
                 "PEM certificate chain: the gRPC port speaks TLS and the HTTP port HTTPS/WSS "
                 "(reread when it changes)");
  app.add_option("--tls-key", f.tls.key, "PEM private key of --tls-cert (reread when it changes)");
  app.add_option("--peer-tls-ca", f.peer_tls_ca,
                 "PEM authority other hosts' certificates chain to: MigrateSession dials them "
                 "over TLS (with --tls-cert and without this: the system's roots)");
  app.add_option("--http-tls-cert", f.http_tls.certificate,
                 "PEM certificate chain for the HTTP port only (default: --tls-cert)");
  app.add_option("--http-tls-key", f.http_tls.key, "PEM private key of --http-tls-cert");
  app.add_flag("--http-plain", f.http_plain,
               "the HTTP port speaks plain HTTP/WS even with --tls-cert (an ingress in front of it "
               "terminates TLS)");
  app.add_option("--tls-reload-s", f.tls.reload_interval_s,
                 "how often the certificate and key files are checked for changes [s]")
      ->capture_default_str()
      ->check(CLI::Range(1, 86400));
}

std::string finish_server_flags(ServerFlags& f) {
  if (f.http_plain && f.http_tls.enabled())
    return "--http-plain: not with --http-tls-cert/--http-tls-key";
  if (!f.http_tls.enabled() && !f.http_plain) f.http_tls = f.tls;
  f.http_tls.reload_interval_s = f.tls.reload_interval_s;
  return {};
}

}  // namespace softbody::server
