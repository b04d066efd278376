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
#include "server/server_flags.h"
#include "server/sessions/scheduler.h"
#include "server/sessions/session_manager.h"
#include "server/tls_credentials.h"
#include "server/web/host_endpoints.h"
#include "server/web/http_server.h"
#include "server/web/https_context.h"
#include "server/web/static_files.h"
#include "server/web/web_gateway.h"

namespace {

using namespace softbody::server;

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
  ServerFlags f;
  add_server_flags(app, f);
  CLI11_PARSE(app, argc, argv);
  if (!f.auth_line.new_token.empty()) return print_new_token(f.auth_line.new_token);
  if (const std::string problem = finish_server_flags(f); !problem.empty()) {
    std::fprintf(stderr, "%s\n", problem.c_str());
    return 2;
  }
  if (!configure_logging(f.log_level)) {
    std::fprintf(stderr, "--log-level: unknown level '%s'\n", f.log_level.c_str());
    return 2;
  }
  const std::unique_ptr<Authenticator> auth =
      authenticator_for(f.auth_line, f.grpc_address, f.http_address);
  if (!auth) return 2;
  if (!std::filesystem::is_directory(f.scenes)) {
    spdlog::error("event=startup_failed error={}", logfmt_value("--scenes: no folder " + f.scenes));
    return 2;
  }
  f.manager.scenes_dir = f.scenes;
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
  Scheduler scheduler(f.scheduler_options);
  SessionManager sessions(f.manager, scheduler, metrics);
  std::unique_ptr<SessionStore> store;  // sessions between hosts (--snapshot-store)
  if (!f.snapshot_store.empty()) {
    try {
      store = std::make_unique<SessionStore>(sessions, f.snapshot_store, host_name);
    } catch (const std::exception& e) {  // e.g. an unwritable --snapshot-store
      spdlog::error("event=startup_failed error={}", logfmt_value(e.what()));
      return 2;
    }
  }
  // A mistyped --preload (through ./run.sh, say) must not leave a server that serves nothing.
  if (!f.preload.empty()) {
    std::string names;
    bool found = false;
    for (const SceneListing& s : sessions.list_scenes()) {
      names += (names.empty() ? "" : ", ") + s.name;
      found = found || s.name == f.preload;
    }
    if (!found) {
      spdlog::error("event=startup_failed error={}",
                    logfmt_value("--preload " + f.preload + ": no scene '" + f.preload + "' in " +
                                 f.scenes + " (available: " + names + "; '' preloads none)"));
      return 2;
    }
  }
  SimulationService service(sessions, metrics, {}, auth.get());
  try {
    service.peer_dialing = peer_dialing(f.tls.enabled(), f.peer_tls_ca);
  } catch (const std::exception& e) {
    spdlog::error("event=startup_failed error={}",
                  logfmt_value("--peer-tls-ca: " + std::string(e.what())));
    return 2;
  }
  f.gateway_options.max_message_bytes = static_cast<std::size_t>(f.max_message_mb) * 1024 * 1024;
  // Declared before the HTTP server: its connections refer to the gateway until they are gone.
  WebGateway gateway(service, sessions, metrics, f.gateway_options);

  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  int grpc_port = 0;
  std::shared_ptr<grpc::ServerCredentials> credentials;
  try {
    credentials = grpc_port_credentials(f.tls);
  } catch (const std::exception& e) {
    spdlog::error("event=startup_failed error={}", logfmt_value(e.what()));
    return 2;
  }
  builder.AddListeningPort(f.grpc_address, credentials, &grpc_port);
  builder.SetMaxReceiveMessageSize(f.max_message_mb * 1024 * 1024);
  // gRPC sets SO_REUSEPORT by default: a second server on the same port would start and share
  // the connections with the first (clients would see either's sessions). A port in use must be
  // an error, as it is for the HTTP port.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || grpc_port == 0) {
    spdlog::error("event=startup_failed error={}",
                  logfmt_value("cannot listen for gRPC on " + f.grpc_address +
                               " (address in use or not local?)"));
    return 1;
  }
  server->GetHealthCheckService()->SetServingStatus("softbody.v1.Simulation", true);

  std::unique_ptr<HttpServer> http;
  try {
    http = std::make_unique<HttpServer>(
        f.http_address,
        f.http_tls.enabled() ? std::make_shared<HttpsContext>(f.http_tls) : nullptr);
  } catch (const std::exception& e) {
    spdlog::error("event=startup_failed error={}", logfmt_value(e.what()));
    server->Shutdown();
    return 1;
  }
  std::atomic<bool> serving{true};
  const StaticFiles web_files(f.web_root);
  add_host_endpoints(*http, {serving, sessions, *auth, service.identity, metrics, web_files});
  http->websocket("/ws", [&](HttpStream stream, UpgradeRequest request) {
    gateway.accept(std::move(stream), std::move(request));
  });
  http->start();
  service.identity.set({host_name,
                        advertised_address(f.advertise_grpc, f.grpc_address, grpc_port, host_name),
                        f.advertise_http.empty()
                            ? std::string(http->tls() ? "https://" : "http://") +
                                  advertised_address("", f.http_address, http->port(), host_name)
                            : f.advertise_http,
                        !f.advertise_grpc.empty(), store ? store->dir().string() : std::string()});
  if (f.adopt_stored && store) {
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
                     std::chrono::milliseconds(static_cast<int>(f.shutdown_grace_s * 1000)));
    scheduler.stop();
    http->stop([&] { gateway.close_all("the server is shutting down"); },
               [&] { return gateway.connections() == 0; });
    gateway.shut_down();
  };

  if (!f.preload.empty()) {
    NewSession request;
    request.scene_name = f.preload;
    request.label = "preloaded";
    request.audience = parse_audience(f.preload_audience);  // checked when the flags were read
    try {
      auto session = sessions.create(request);
      session->idle_timeout_s = 0;  // the preloaded session stays
    } catch (const ApiError& e) {
      // A host already full (sessions adopted from the store) serves those: the f.preload waits.
      // Anything else is a broken scene the operator must hear about.
      if (e.code() != grpc::StatusCode::RESOURCE_EXHAUSTED) {
        spdlog::error("event=startup_failed error={}",
                      logfmt_value("--preload " + f.preload + ": " + e.what()));
        shut_down();
        return 2;
      }
      spdlog::warn("event=preload_failed scene={} error={}", f.preload, logfmt_value(e.what()));
    } catch (const std::exception& e) {
      spdlog::error("event=startup_failed error={}",
                    logfmt_value("--preload " + f.preload + ": " + e.what()));
      shut_down();
      return 2;
    }
  }
  spdlog::info(
      "event=listening grpc_port={} grpc_tls={} http_port={} http_tls={} workers={} scenes={} "
      "web_root={}",
      grpc_port, f.tls.enabled() ? "on" : "off", http->port(), http->tls() ? "on" : "off",
      scheduler.workers(), logfmt_value(f.scenes),
      logfmt_value(web_files.has_index() ? web_files.root().string() : "(not built)"));
  if (!f.ready_file.empty()) write_ready_file(f.ready_file, grpc_port, http->port());

  int signal = 0;
  sigwait(&signals, &signal);
  spdlog::info("event=shutdown_started signal={}", signal);
  shut_down();
  spdlog::info("event=shutdown_complete");
  return 0;
}
