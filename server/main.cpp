// softbody-server: hosts simulation sessions over gRPC (softbody.v1.Simulation, health, reflection)
// and over HTTP serves /healthz (liveness), /readyz (readiness: false when full or draining),
// /status (capacity, JSON), /metrics, the browser client and its WebSocket gateway (/ws).
// SIGTERM or SIGINT shut it down gracefully; with --snapshot-store its sessions are saved there
// first, for another host to continue.
#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <thread>

#include "engine/solvers/sparse_cholesky.h"
#include "server/api/simulation_service.h"
#include "server/api_error.h"
#include "server/auth/access_policy.h"
#include "server/auth/auth_command_line.h"
#include "server/cluster/capacity.h"
#include "server/cluster/host_status.h"
#include "server/cluster/session_store.h"
#include "server/logging.h"
#include "server/sessions/scheduler.h"
#include "server/sessions/session_manager.h"
#include "server/tls_credentials.h"
#include "server/web/http_server.h"
#include "server/web/https_context.h"
#include "server/web/static_files.h"
#include "server/web/web_gateway.h"

namespace {

using namespace softbody::server;

// Where the shipped scenes are when --scenes is not given: ./scenes, else the source tree's.
std::string default_scenes_dir() {
  if (std::filesystem::exists("scenes/default.json")) return "scenes";
  return SOFTBODY_SOURCE_DIR "/scenes";
}

// Where the built browser client is when --web-root is not given.
std::string default_web_root() {
  if (std::filesystem::exists("client-web/dist/index.html")) return "client-web/dist";
  return SOFTBODY_SOURCE_DIR "/client-web/dist";
}

void write_ready_file(const std::string& path, int grpc_port, int http_port) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    out << "{\"grpc_port\": " << grpc_port << ", \"http_port\": " << http_port
        << ", \"pid\": " << getpid() << "}\n";
  }
  std::filesystem::rename(tmp, path);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"softbody-server: real-time soft-body simulation sessions over gRPC"};
  // Loopback by default: beyond it the server needs authentication (or --allow-unauthenticated).
  std::string grpc_address = "127.0.0.1:50051", http_address = "127.0.0.1:8080";
  AuthCommandLine auth_line;
  TlsFiles tls;
  std::string peer_tls_ca;
  std::string scenes = default_scenes_dir(), log_level = "info", preload = "default", ready_file;
  ManagerOptions manager;
  SchedulerOptions scheduler_options;
  std::string web_root = default_web_root();
  GatewayOptions gateway_options;
  double shutdown_grace_s = 2.0;
  bool adopt_stored = false;
  std::string advertise_grpc, advertise_http;
  int max_message_mb = 64;
  app.add_option("--grpc", grpc_address, "gRPC listen address (port 0: any free port; last wins)")
      ->capture_default_str()
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option("--http", http_address,
                 "HTTP listen address: browser client, WebSocket gateway (/ws), /healthz, /metrics")
      ->capture_default_str()
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  // ./run.sh passes --scenes and --preload before the user's arguments: the user's win.
  app.add_option("--scenes", scenes, "folder of shipped scene files (last wins)")
      ->capture_default_str()
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option("--preload", preload,
                 "scene to start a session of at startup ('' for none; the server refuses to "
                 "start when it cannot; last wins)")
      ->capture_default_str()
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  std::string preload_audience = "watch=trainee,steer=instructor";
  app.add_option("--preload-audience", preload_audience,
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
  app.add_option("--max-sessions", manager.max_sessions, "most sessions at once")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  app.add_option("--max-cpu-load", manager.max_cpu_load,
                 "admission: refuse new sessions once running ones take this share of the worker "
                 "cores (the CPU time of their steps per simulated second, measured; accepts "
                 "again 10 % below); 0 turns CPU admission off")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 4.0));
  std::string snapshot_store;
  app.add_option("--snapshot-store", snapshot_store,
                 "folder (a shared volume in a cluster) where SIGTERM saves every session and "
                 "where a session this host does not hold is looked for; '' for none")
      ->capture_default_str();
  app.add_flag("--adopt-stored", adopt_stored,
               "at start, restore every session in --snapshot-store (otherwise each is restored "
               "when a client asks for it)");
  app.add_option("--advertise-grpc", advertise_grpc,
                 "host:port other hosts and clients reach this gRPC at (default: the listen "
                 "address, a wildcard host replaced by the host name)");
  app.add_option("--advertise-http", advertise_http,
                 "base URL browsers reach this HTTP port at (default: http://HOST:PORT like "
                 "--advertise-grpc)");
  app.add_option("--workers", scheduler_options.workers,
                 "simulation worker threads (0: one per core)")
      ->capture_default_str()
      ->check(CLI::Range(0, 1024));
  app.add_option("--threads-per-step", scheduler_options.threads_per_step,
                 "OpenMP threads inside one step")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  app.add_option("--idle-timeout", manager.idle_timeout_s,
                 "seconds before an idle session is deleted (0: never)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--max-vertices", manager.max_vertices, "largest mesh a session may have")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--max-subscribers", manager.session.max_subscribers, "state streams per session")
      ->capture_default_str()
      ->check(CLI::Range(1, 10000));
  app.add_option("--max-tools", manager.session.max_tools, "Interact streams per session")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  app.add_option("--loosest-tolerance", manager.session.loosest_tolerance,
                 "accuracy floor: under load a session loosens its solve tolerance up to this "
                 "relative residual, never further")
      ->capture_default_str()
      ->check(CLI::Range(1e-12, 0.5));
  app.add_option("--max-message-mb", max_message_mb, "largest request message [MiB]")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  app.add_option("--web-root", web_root, "folder of the built browser client (npm run build)")
      ->capture_default_str();
  app.add_option("--allowed-origin", gateway_options.allowed_origins,
                 "browser origin allowed to open the WebSocket besides the server's own "
                 "(repeatable; '*' allows any)");
  app.add_option("--max-web-connections", gateway_options.max_connections,
                 "most browser (WebSocket) connections at once")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error or off (last wins)")
      ->capture_default_str()
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option(
      "--ready-file", ready_file,
      "write {\"grpc_port\", \"http_port\"} here once listening (for tests and scripts)");
  app.add_option("--shutdown-grace", shutdown_grace_s,
                 "seconds in-flight calls get to finish on SIGTERM")
      ->capture_default_str();
  add_auth_options(app, auth_line);
  app.add_option("--tls-cert", tls.certificate,
                 "PEM certificate chain: the gRPC port speaks TLS and the HTTP port HTTPS/WSS "
                 "(reread when it changes)");
  app.add_option("--tls-key", tls.key, "PEM private key of --tls-cert (reread when it changes)");
  app.add_option("--peer-tls-ca", peer_tls_ca,
                 "PEM authority other hosts' certificates chain to: MigrateSession dials them "
                 "over TLS (with --tls-cert and without this: the system's roots)");
  // Sites whose ingress terminates the HTTP port's TLS (with its own certificate) serve that port
  // with another pair, or plain behind the ingress, while the gRPC port keeps --tls-cert.
  TlsFiles http_tls;
  bool http_plain = false;
  app.add_option("--http-tls-cert", http_tls.certificate,
                 "PEM certificate chain for the HTTP port only (default: --tls-cert)");
  app.add_option("--http-tls-key", http_tls.key, "PEM private key of --http-tls-cert");
  app.add_flag("--http-plain", http_plain,
               "the HTTP port speaks plain HTTP/WS even with --tls-cert (an ingress in front of it "
               "terminates TLS)");
  app.add_option("--tls-reload-s", tls.reload_interval_s,
                 "how often the certificate and key files are checked for changes [s]")
      ->capture_default_str()
      ->check(CLI::Range(1, 86400));
  CLI11_PARSE(app, argc, argv);
  if (!auth_line.new_token.empty()) return print_new_token(auth_line.new_token);
  if (http_plain && http_tls.enabled()) {
    std::fprintf(stderr, "--http-plain: not with --http-tls-cert/--http-tls-key\n");
    return 2;
  }
  if (!http_tls.enabled() && !http_plain) http_tls = tls;
  http_tls.reload_interval_s = tls.reload_interval_s;
  if (!configure_logging(log_level)) {
    std::fprintf(stderr, "--log-level: unknown level '%s'\n", log_level.c_str());
    return 2;
  }
  const std::unique_ptr<Authenticator> auth =
      authenticator_for(auth_line, grpc_address, http_address);
  if (!auth) return 2;
  if (!std::filesystem::is_directory(scenes)) {
    spdlog::error("event=startup_failed error={}", logfmt_value("--scenes: no folder " + scenes));
    return 2;
  }
  manager.scenes_dir = scenes;
  std::string host_name = "localhost";  // this host's name (store claims, logs, status)
  {
    char name[256] = {};
    gethostname(name, sizeof name - 1);
    if (name[0]) host_name = name;
  }

  // Signals are taken by sigwait in this thread only: block them before any thread starts.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  // ...and a thread pool a library started before main() (OpenBLAS, through CHOLMOD) is stopped,
  // to restart later from a thread that blocks them.
  softbody::stop_blas_thread_pool();

  Metrics metrics;
  Scheduler scheduler(scheduler_options);
  SessionManager sessions(manager, scheduler, metrics);
  std::unique_ptr<SessionStore> store;  // sessions between hosts (--snapshot-store)
  if (!snapshot_store.empty()) {
    try {
      store = std::make_unique<SessionStore>(sessions, snapshot_store, host_name);
    } catch (const std::exception& e) {  // e.g. an unwritable --snapshot-store
      spdlog::error("event=startup_failed error={}", logfmt_value(e.what()));
      return 2;
    }
  }
  // A mistyped --preload (through ./run.sh, say) must not leave a server that serves nothing.
  if (!preload.empty()) {
    std::string names;
    bool found = false;
    for (const SceneListing& s : sessions.list_scenes()) {
      names += (names.empty() ? "" : ", ") + s.name;
      found = found || s.name == preload;
    }
    if (!found) {
      spdlog::error("event=startup_failed error={}",
                    logfmt_value("--preload " + preload + ": no scene '" + preload + "' in " +
                                 scenes + " (available: " + names + "; '' preloads none)"));
      return 2;
    }
  }
  SimulationService service(sessions, metrics, {}, auth.get());
  try {
    service.peer_dialing = peer_dialing(tls.enabled(), peer_tls_ca);
  } catch (const std::exception& e) {
    spdlog::error("event=startup_failed error={}",
                  logfmt_value("--peer-tls-ca: " + std::string(e.what())));
    return 2;
  }
  gateway_options.max_message_bytes = static_cast<std::size_t>(max_message_mb) * 1024 * 1024;
  // Declared before the HTTP server: its connections refer to the gateway until they are gone.
  WebGateway gateway(service, sessions, metrics, gateway_options);

  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  int grpc_port = 0;
  std::shared_ptr<grpc::ServerCredentials> credentials;
  try {
    credentials = grpc_port_credentials(tls);
  } catch (const std::exception& e) {
    spdlog::error("event=startup_failed error={}", logfmt_value(e.what()));
    return 2;
  }
  builder.AddListeningPort(grpc_address, credentials, &grpc_port);
  builder.SetMaxReceiveMessageSize(max_message_mb * 1024 * 1024);
  // gRPC sets SO_REUSEPORT by default: a second server on the same port would start and share
  // the connections with the first (clients would see either's sessions). A port in use must be
  // an error, as it is for the HTTP port.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || grpc_port == 0) {
    spdlog::error("event=startup_failed error={}",
                  logfmt_value("cannot listen for gRPC on " + grpc_address +
                               " (address in use or not local?)"));
    return 1;
  }
  server->GetHealthCheckService()->SetServingStatus("softbody.v1.Simulation", true);

  std::unique_ptr<HttpServer> http;
  try {
    http = std::make_unique<HttpServer>(
        http_address, http_tls.enabled() ? std::make_shared<HttpsContext>(http_tls) : nullptr);
  } catch (const std::exception& e) {
    spdlog::error("event=startup_failed error={}", logfmt_value(e.what()));
    server->Shutdown();
    return 1;
  }
  std::atomic<bool> serving{true};
  http->route("/healthz", [&] {
    return serving ? HttpResponse{200, "text/plain; charset=utf-8", "ok\n", {}}
                   : HttpResponse{503, "text/plain; charset=utf-8", "shutting down\n", {}};
  });
  // Readiness for load balancers and Kubernetes: false when this host takes no more sessions
  // (--max-sessions, --max-cpu-load) or is draining; liveness (/healthz) stays true meanwhile.
  http->route("/readyz", [&] {
    const Capacity c = sessions.capacity();
    return c.accepting() ? HttpResponse{200, "text/plain; charset=utf-8", "ready\n", {}}
                         : HttpResponse{503, "text/plain; charset=utf-8", c.refusal + "\n", {}};
  });
  // Host facts and metrics are an admin's (with authentication: a bearer token of that role).
  const auto admin_refusal = [&](const std::string& authorization) -> std::optional<HttpResponse> {
    try {
      require_role(auth->authenticate(authorization, TokenCarrier::kHttpHeader), Role::kAdmin,
                   "this endpoint");
      return std::nullopt;
    } catch (const ApiError& e) {
      const bool who = e.code() == grpc::StatusCode::UNAUTHENTICATED;
      return HttpResponse{who ? 401 : 403,
                          "text/plain; charset=utf-8",
                          std::string(e.what()) + "\n",
                          {{"WWW-Authenticate", "Bearer"}}};
    }
  };
  http->route("/status", [&](const std::string& authorization) {
    if (auto refused = admin_refusal(authorization)) return *refused;
    return HttpResponse{200,
                        "application/json",
                        server_status_json(server_status(sessions, service.identity.get())),
                        {}};
  });
  metrics.write_gauges = [&](std::string& out) {
    write_capacity_gauges(sessions.capacity(), out);
    const auto all = sessions.list();
    int running = 0, subscribers = 0, tools = 0;
    for (const auto& s : all) {
      running += s->running ? 1 : 0;
      subscribers += s->num_subscribers();
      tools += s->num_tools();
    }
    out += "# HELP softbody_sessions Sessions hosted.\n# TYPE softbody_sessions gauge\n";
    out += "softbody_sessions " + std::to_string(all.size()) + "\n";
    out +=
        "# HELP softbody_sessions_running Sessions stepping in real time.\n"
        "# TYPE softbody_sessions_running gauge\nsoftbody_sessions_running " +
        std::to_string(running) + "\n";
    out +=
        "# HELP softbody_subscribers State streams open.\n"
        "# TYPE softbody_subscribers gauge\nsoftbody_subscribers " +
        std::to_string(subscribers) + "\n";
    out +=
        "# HELP softbody_tools Interact streams open.\n"
        "# TYPE softbody_tools gauge\nsoftbody_tools " +
        std::to_string(tools) + "\n";
    out +=
        "# HELP softbody_shared_bodies Distinct meshes and materials in memory.\n"
        "# TYPE softbody_shared_bodies gauge\nsoftbody_shared_bodies " +
        std::to_string(sessions.body_cache_size()) + "\n";
  };
  http->route("/metrics", [&](const std::string& authorization) {
    if (auto refused = admin_refusal(authorization)) return *refused;
    return HttpResponse{200, "text/plain; version=0.0.4; charset=utf-8", metrics.exposition(), {}};
  });
  const StaticFiles web_files(web_root);
  if (web_files.has_index()) {
    http->fallback([&](const std::string& path) { return web_files.get(path); });
  } else {
    spdlog::warn("event=web_client_missing web_root={} hint={}", logfmt_value(web_root),
                 logfmt_value("run ./run.sh (or npm run build in client-web/) to build it"));
    http->fallback([&](const std::string& path) -> std::optional<HttpResponse> {
      if (path != "/") return std::nullopt;
      return HttpResponse{503,
                          "text/plain; charset=utf-8",
                          "The browser client is not built (no " + web_root +
                              "/index.html): run ./run.sh, or npm run build in client-web/.\n",
                          {}};
    });
  }
  http->websocket("/ws", [&](HttpStream stream, UpgradeRequest request) {
    gateway.accept(std::move(stream), std::move(request));
  });
  http->start();
  service.identity.set(
      {host_name, advertised_address(advertise_grpc, grpc_address, grpc_port, host_name),
       advertise_http.empty() ? std::string(http->tls() ? "https://" : "http://") +
                                    advertised_address("", http_address, http->port(), host_name)
                              : advertise_http,
       !advertise_grpc.empty(), store ? store->dir().string() : std::string()});
  if (adopt_stored && store) {
    const int adopted = store->adopt_all();
    spdlog::info("event=adopted_stored sessions={}", adopted);
  }

  // Stops accepting work, ends every stream with a clear status, gives in-flight unary calls the
  // grace period, then stops the physics.
  const auto shut_down = [&] {
    serving = false;
    server->GetHealthCheckService()->SetServingStatus("softbody.v1.Simulation", false);
    // With a store, every session is saved for another host before its streams end (with a
    // SessionMoved detail, so clients know to reconnect rather than give up).
    if (store)
      store->drain();
    else
      sessions.refuse_new_sessions();
    sessions.shut_down(grpc::Status(grpc::StatusCode::UNAVAILABLE, "the server is shutting down"));
    server->Shutdown(std::chrono::system_clock::now() +
                     std::chrono::milliseconds(static_cast<int>(shutdown_grace_s * 1000)));
    scheduler.stop();
    http->stop([&] { gateway.close_all("the server is shutting down"); },
               [&] { return gateway.connections() == 0; });
    gateway.shut_down();
  };

  if (!preload.empty()) {
    NewSession request;
    request.scene_name = preload;
    request.label = "preloaded";
    request.audience = parse_audience(preload_audience);  // checked when the flags were read
    try {
      auto session = sessions.create(request);
      session->idle_timeout_s = 0;  // the preloaded session stays
    } catch (const ApiError& e) {
      // A host already full (sessions adopted from the store) serves those: the preload waits.
      // Anything else is a broken scene the operator must hear about.
      if (e.code() != grpc::StatusCode::RESOURCE_EXHAUSTED) {
        spdlog::error("event=startup_failed error={}",
                      logfmt_value("--preload " + preload + ": " + e.what()));
        shut_down();
        return 2;
      }
      spdlog::warn("event=preload_failed scene={} error={}", preload, logfmt_value(e.what()));
    } catch (const std::exception& e) {
      spdlog::error("event=startup_failed error={}",
                    logfmt_value("--preload " + preload + ": " + e.what()));
      shut_down();
      return 2;
    }
  }
  spdlog::info(
      "event=listening grpc_port={} grpc_tls={} http_port={} http_tls={} workers={} scenes={} "
      "web_root={}",
      grpc_port, tls.enabled() ? "on" : "off", http->port(), http->tls() ? "on" : "off",
      scheduler.workers(), logfmt_value(scenes),
      logfmt_value(web_files.has_index() ? web_files.root().string() : "(not built)"));
  if (!ready_file.empty()) write_ready_file(ready_file, grpc_port, http->port());

  int signal = 0;
  sigwait(&signals, &signal);
  spdlog::info("event=shutdown_started signal={}", signal);
  shut_down();
  spdlog::info("event=shutdown_complete");
  return 0;
}
