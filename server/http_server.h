// The HTTP port (Boost.Beast): /healthz and /metrics now; the browser client's files and the
// WebSocket gateway join it later (issue 6). One I/O thread; handlers must be quick.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>

namespace softbody::server {

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

class HttpServer {
 public:
  using Handler = std::function<HttpResponse()>;
  // Binds `address` ("host:port", port 0 picks a free one); throws std::runtime_error when it
  // cannot.
  explicit HttpServer(const std::string& address);
  ~HttpServer();
  void route(const std::string& path, Handler handler);  // GET only; before start()
  void start();
  void stop();
  int port() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace softbody::server
