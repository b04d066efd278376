// The HTTP port (Boost.Beast): /healthz and /metrics, the browser client's static files, and the
// WebSocket upgrade handed to the gateway; HTTPS and WSS when given a certificate. One I/O
// thread; handlers must be quick.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "server/web/websocket_upgrade.h"

namespace softbody::server {

class HttpsContext;

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // extra header fields
};

class HttpServer {
 public:
  using Handler = std::function<HttpResponse()>;
  // A handler told the request's Authorization header ("" when absent).
  using AuthorizedHandler = std::function<HttpResponse(const std::string& authorization)>;
  // A GET for a path no route names (static files); nullopt: 404.
  using Fallback = std::function<std::optional<HttpResponse>(const std::string& path)>;
  // Binds `address` ("host:port", port 0 picks a free one); throws std::runtime_error when it
  // cannot. With `tls`, every connection speaks TLS (HTTPS, WSS).
  explicit HttpServer(const std::string& address, std::shared_ptr<HttpsContext> tls = nullptr);
  ~HttpServer();
  // Before start():
  void route(const std::string& path, Handler handler);  // GET only
  void route(const std::string& path, AuthorizedHandler handler);
  void fallback(Fallback handler);
  void websocket(const std::string& path, UpgradeHandler handler);
  void start();
  // Stops accepting, runs `drain` on the I/O thread (close WebSockets), waits up to `grace_s` for
  // `idle()` to turn true, then stops the I/O thread.
  void stop(const std::function<void()>& drain = {}, const std::function<bool()>& idle = {},
            double grace_s = 1.0);
  int port() const;
  bool tls() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace softbody::server
