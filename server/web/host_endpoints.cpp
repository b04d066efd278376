#include "server/web/host_endpoints.h"

#include <optional>

#include "server/api_error.h"
#include "server/auth/access_policy.h"
#include "server/cluster/capacity.h"
#include "server/logging.h"

namespace softbody::server {

void add_host_endpoints(HttpServer& http, const HostEndpoints& e) {
  http.route("/healthz", [e] {
    return e.serving ? HttpResponse{200, "text/plain; charset=utf-8", "ok\n", {}}
                     : HttpResponse{503, "text/plain; charset=utf-8", "shutting down\n", {}};
  });
  // Readiness for load balancers and Kubernetes: false when this host takes no more sessions
  // (--max-sessions, --max-cpu-load) or is draining; liveness (/healthz) stays true meanwhile.
  http.route("/readyz", [e] {
    const Capacity c = e.sessions.capacity();
    return c.accepting() ? HttpResponse{200, "text/plain; charset=utf-8", "ready\n", {}}
                         : HttpResponse{503, "text/plain; charset=utf-8", c.refusal + "\n", {}};
  });
  // Host facts and metrics are an admin's (with authentication: a bearer token of that role).
  const auto admin_refusal = [e](const std::string& authorization) -> std::optional<HttpResponse> {
    try {
      require_role(e.auth.authenticate(authorization, TokenCarrier::kHttpHeader), Role::kAdmin,
                   "this endpoint");
      return std::nullopt;
    } catch (const ApiError& refusal) {
      const bool who = refusal.code() == grpc::StatusCode::UNAUTHENTICATED;
      return HttpResponse{who ? 401 : 403,
                          "text/plain; charset=utf-8",
                          std::string(refusal.what()) + "\n",
                          {{"WWW-Authenticate", "Bearer"}}};
    }
  };
  http.route("/status", [e, admin_refusal](const std::string& authorization) {
    if (auto refused = admin_refusal(authorization)) return *refused;
    return HttpResponse{
        200, "application/json", server_status_json(server_status(e.sessions, e.identity.get())), {}};
  });
  e.metrics.write_gauges = [e](std::string& out) {
    write_capacity_gauges(e.sessions.capacity(), out);
    const auto all = e.sessions.list();
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
        std::to_string(e.sessions.body_cache_size()) + "\n";
  };
  http.route("/metrics", [e, admin_refusal](const std::string& authorization) {
    if (auto refused = admin_refusal(authorization)) return *refused;
    return HttpResponse{
        200, "text/plain; version=0.0.4; charset=utf-8", e.metrics.exposition(), {}};
  });
  if (e.web_files.has_index()) {
    http.fallback([e](const std::string& path) { return e.web_files.get(path); });
  } else {
    spdlog::warn("event=web_client_missing web_root={} hint={}",
                 logfmt_value(e.web_files.root().string()),
                 logfmt_value("run ./run.sh (or npm run build in client-web/) to build it"));
    http.fallback([e](const std::string& path) -> std::optional<HttpResponse> {
      if (path != "/") return std::nullopt;
      return HttpResponse{503,
                          "text/plain; charset=utf-8",
                          "The browser client is not built (no " + e.web_files.root().string() +
                              "/index.html): run ./run.sh, or npm run build in client-web/.\n",
                          {}};
    });
  }
}

}  // namespace softbody::server
