#include "server/web/web_gateway.h"

#include <algorithm>
#include <utility>  // before Asio: Boost 1.74 uses std::exchange without it under C++20

#include <boost/asio/post.hpp>
#include <boost/beast/http.hpp>

#include "server/logging.h"
#include "server/web/gateway_connection.h"

namespace softbody::server {
namespace beast = boost::beast;
namespace http = beast::http;

namespace {

// Answers an upgrade request we refuse with a plain HTTP error, then closes.
void refuse(HttpStream stream, const UpgradeRequest& request, http::status status,
            const std::string& reason) {
  auto stream_ptr = std::make_shared<HttpStream>(std::move(stream));
  auto response = std::make_shared<http::response<http::string_body>>(status, request.version());
  response->set(http::field::server, "softbody-server");
  response->set(http::field::content_type, "text/plain; charset=utf-8");
  response->keep_alive(false);
  response->body() = reason + "\n";
  response->prepare_payload();
  http::async_write(*stream_ptr, *response, [stream_ptr, response](beast::error_code, std::size_t) {
    beast::error_code ec;
    stream_ptr->next_layer().socket().shutdown(boost::asio::ip::tcp::socket::shutdown_both, ec);
  });
}

// "http://host:port" -> "host:port", compared with the Host header the browser sent.
std::string origin_authority(const std::string& origin) {
  const auto scheme_end = origin.find("://");
  std::string authority = scheme_end == std::string::npos ? origin : origin.substr(scheme_end + 3);
  if (!authority.empty() && authority.back() == '/') authority.pop_back();
  return authority;
}

}  // namespace

WebGateway::WebGateway(SimulationService& service, SessionManager& sessions, Metrics& metrics,
                       GatewayOptions options)
    : service_(service), sessions_(sessions), metrics_(metrics), options_(std::move(options)) {}

WebGateway::~WebGateway() {
  shut_down();
}

bool WebGateway::origin_allowed(const std::string& origin, const std::string& host,
                                const std::vector<std::string>& allowed) {
  if (origin.empty()) return true;  // not a browser
  if (std::find(allowed.begin(), allowed.end(), "*") != allowed.end()) return true;
  if (std::find(allowed.begin(), allowed.end(), origin) != allowed.end()) return true;
  return !host.empty() && origin_authority(origin) == host;
}

void WebGateway::accept(HttpStream stream, UpgradeRequest request) {
  const std::string origin(request[http::field::origin]);
  const std::string host(request[http::field::host]);
  if (!origin_allowed(origin, host, options_.allowed_origins)) {
    spdlog::warn("event=websocket_refused reason=origin origin={} host={}", logfmt_value(origin),
                 logfmt_value(host));
    return refuse(std::move(stream), request, http::status::forbidden,
                  "origin not allowed: " + origin + " (start the server with --allowed-origin " +
                      origin + " to allow it)");
  }
  if (open_.load() >= options_.max_connections) {
    metrics_.requests_refused.fetch_add(1, std::memory_order_relaxed);
    return refuse(std::move(stream), request, http::status::service_unavailable,
                  "too many browser connections (--max-web-connections " +
                      std::to_string(options_.max_connections) + ")");
  }
  metrics_.websocket_connections.fetch_add(1, std::memory_order_relaxed);
  auto connection = std::make_shared<GatewayConnection>(*this, std::move(stream));
  {
    std::lock_guard lock(mutex_);
    std::erase_if(connections_, [](const auto& weak) { return weak.expired(); });
    connections_.push_back(connection);
  }
  ++open_;
  connection->start(std::move(request));
}

void WebGateway::forget(const GatewayConnection*) {
  --open_;
}

void WebGateway::close_all(const std::string& reason) {
  std::lock_guard lock(mutex_);
  for (const auto& weak : connections_) {
    if (auto connection = weak.lock())
      connection->close(beast::websocket::close_code::going_away, reason);
  }
}

void WebGateway::shut_down() {
  workers_.join();
  std::vector<std::shared_ptr<GatewayConnection>> alive;
  {
    std::lock_guard lock(mutex_);
    for (const auto& weak : connections_)
      if (auto connection = weak.lock()) alive.push_back(std::move(connection));
    connections_.clear();
  }
  for (const auto& connection : alive) connection->release_streams();
}

}  // namespace softbody::server
