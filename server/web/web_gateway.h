// The browser gateway (design guide §6): WebSocket connections on the HTTP port carrying the
// envelopes of softbody/v1/gateway.proto, served by the same session manager and service code as
// gRPC. Accepts upgrades after an origin check and a connection limit; owns the worker threads
// that run slow requests (creating a session) off the I/O thread.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <boost/asio/thread_pool.hpp>

#include "server/api/simulation_service.h"
#include "server/web/websocket_upgrade.h"

namespace softbody::server {

class GatewayConnection;

struct GatewayOptions {
  std::size_t max_message_bytes = 1 << 20;  // a client message larger than this closes (1009)
  std::size_t max_pending_replies = 64;     // request replies a client may leave unread
  int max_connections = 256;
  // Origins allowed besides the server's own (the Host the browser asked for), e.g.
  // "http://localhost:5173" for the Vite dev server; "*" allows any. Clients sending no Origin
  // (native tools, node) are always allowed: the check protects browsers' users from other sites.
  std::vector<std::string> allowed_origins;
  double max_rate_hz = 1000;  // state frames per second a subscription may ask for
};

class WebGateway {
 public:
  WebGateway(SimulationService& service, SessionManager& sessions, Metrics& metrics,
             GatewayOptions options = {});
  ~WebGateway();

  // The HTTP server's upgrade handler (I/O thread).
  void accept(HttpStream stream, UpgradeRequest request);
  // Closes every connection with 1001 "going away" and `reason` (I/O thread).
  void close_all(const std::string& reason);
  // Ends the worker threads and every subscription thread; after the I/O thread has stopped.
  void shut_down();
  int connections() const { return open_.load(); }

  // For connections.
  SimulationService& service() { return service_; }
  SessionManager& sessions() { return sessions_; }
  Metrics& metrics() { return metrics_; }
  const GatewayOptions& options() const { return options_; }
  boost::asio::thread_pool& workers() { return workers_; }
  void forget(const GatewayConnection* connection);

  // Whether a browser page from `origin` may connect to a server it reached as `host`.
  static bool origin_allowed(const std::string& origin, const std::string& host,
                             const std::vector<std::string>& allowed);

 private:
  SimulationService& service_;
  SessionManager& sessions_;
  Metrics& metrics_;
  GatewayOptions options_;
  boost::asio::thread_pool workers_{2};
  std::mutex mutex_;
  std::vector<std::weak_ptr<GatewayConnection>> connections_;
  std::atomic<int> open_{0};
};

}  // namespace softbody::server
