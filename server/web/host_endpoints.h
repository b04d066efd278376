// The HTTP port's host endpoints: /healthz (liveness), /readyz (readiness: false when full or
// draining), /status (capacity, JSON) and /metrics (an admin's, with authentication), and the
// built browser client's files (or a page saying how to build it).
#pragma once

#include <atomic>

#include "server/auth/authenticator.h"
#include "server/cluster/host_status.h"
#include "server/metrics.h"
#include "server/sessions/session_manager.h"
#include "server/web/http_server.h"
#include "server/web/static_files.h"

namespace softbody::server {

// What the endpoints read; all outlive the HTTP server (the handlers keep these references).
struct HostEndpoints {
  const std::atomic<bool>& serving;  // false once shutting down: /healthz answers 503
  SessionManager& sessions;
  const Authenticator& auth;
  const HostIdentityCell& identity;
  Metrics& metrics;  // its session gauges are written from `sessions`
  const StaticFiles& web_files;
};

void add_host_endpoints(HttpServer& http, const HostEndpoints& e);

}  // namespace softbody::server
