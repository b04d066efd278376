// softbody-server's command line: every flag, its default and its help, and the checks that
// need several flags at once.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "server/auth/auth_command_line.h"
#include "server/sessions/scheduler.h"
#include "server/sessions/session_manager.h"
#include "server/tls_files.h"
#include "server/web/web_gateway.h"

namespace softbody::server {

// Where the shipped scenes and the built browser client are when the flags do not say: ./scenes
// and client-web/dist, else the source tree's.
std::string default_scenes_dir();
std::string default_web_root();

struct ServerFlags {
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
  std::string preload_audience = "watch=trainee,steer=instructor";
  std::string snapshot_store;
  // Sites whose ingress terminates the HTTP port's TLS (with its own certificate) serve that port
  // with another pair, or plain behind the ingress, while the gRPC port keeps --tls-cert.
  TlsFiles http_tls;
  bool http_plain = false;
};

void add_server_flags(CLI::App& app, ServerFlags& f);
// After parsing: the HTTP port's TLS pair from --tls-cert unless given its own (or --http-plain).
// Returns a problem for stderr, or "".
std::string finish_server_flags(ServerFlags& f);

}  // namespace softbody::server
