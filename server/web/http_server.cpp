#include "server/web/http_server.h"

#include <map>
#include <optional>
#include <utility>  // before Asio: Boost 1.74 uses std::exchange without it under C++20

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket/rfc6455.hpp>

#include "server/logging.h"
#include "server/web/https_context.h"

namespace softbody::server {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

struct Routes {
  std::map<std::string, HttpServer::AuthorizedHandler> handlers;
  HttpServer::Fallback fallback;
  std::string websocket_path;
  UpgradeHandler websocket;
};

// One connection: the TLS handshake when the port speaks TLS, then read a request, answer, repeat
// while keep-alive.
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(HttpStream stream, const Routes& routes)
      : stream_(std::move(stream)), routes_(routes) {}

  void start() {
    if (!stream_.is_tls()) return read();
    stream_.next_layer().expires_after(std::chrono::seconds(30));
    stream_.tls().async_handshake(asio::ssl::stream_base::server,
                                  [self = shared_from_this()](beast::error_code ec) {
                                    if (!ec) return self->read();
                                    // A client that does not trust the certificate, or speaks
                                    // cleartext to this port.
                                    spdlog::debug("event=https_handshake_failed peer={} error={}",
                                                  self->peer(), logfmt_value(ec.message()));
                                    self->close();
                                  });
  }

 private:
  std::string peer() {
    beast::error_code ec;
    const auto endpoint = stream_.next_layer().socket().remote_endpoint(ec);
    return ec ? "unknown" : endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
  }

  void read() {
    request_ = {};
    parser_.emplace();
    parser_->body_limit(64 * 1024);
    stream_.next_layer().expires_after(std::chrono::seconds(30));
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code ec, std::size_t) {
                       if (ec) return self->close();
                       self->request_ = self->parser_->release();
                       self->respond();
                     });
  }

  void respond() {
    auto response = std::make_shared<http::response<http::string_body>>();
    response->version(request_.version());
    response->keep_alive(request_.keep_alive());
    response->set(http::field::server, "softbody-server");
    const std::string target(request_.target());
    const std::string path = target.substr(0, target.find('?'));
    if (path == routes_.websocket_path && routes_.websocket &&
        beast::websocket::is_upgrade(request_)) {
      routes_.websocket(std::move(stream_), std::move(request_));  // the gateway owns it now
      return;
    }
    const HttpResponse r = handle(path);
    response->result(static_cast<http::status>(r.status));
    response->set(http::field::content_type, r.content_type);
    for (const auto& [name, value] : r.headers) response->set(name, value);
    response->body() = request_.method() == http::verb::head ? "" : std::move(r.body);
    response->prepare_payload();
    http::async_write(stream_, *response,
                      [self = shared_from_this(), response](beast::error_code ec, std::size_t) {
                        if (ec || !response->keep_alive()) return self->close();
                        self->read();
                      });
  }

  HttpResponse handle(const std::string& path) const {
    if (request_.method() != http::verb::get && request_.method() != http::verb::head)
      return {405, "text/plain; charset=utf-8", "only GET is supported\n", {}};
    try {
      if (auto it = routes_.handlers.find(path); it != routes_.handlers.end())
        return it->second(std::string(request_[http::field::authorization]));
      if (routes_.fallback) {
        if (auto r = routes_.fallback(path)) return std::move(*r);
      }
    } catch (const std::exception& e) {
      return {
          500, "text/plain; charset=utf-8", std::string("internal error: ") + e.what() + "\n", {}};
    }
    return {404, "text/plain; charset=utf-8", "not found: " + path + "\n", {}};
  }

  void close() {
    beast::error_code ec;
    stream_.next_layer().socket().shutdown(tcp::socket::shutdown_send, ec);
  }

  HttpStream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::request<http::string_body> request_;
  const Routes& routes_;
};

std::pair<std::string, unsigned short> split_address(const std::string& address) {
  const auto colon = address.rfind(':');
  if (colon == std::string::npos)
    throw std::runtime_error("--http: expected HOST:PORT, got '" + address + "'");
  std::string host = address.substr(0, colon);
  if (host.empty() || host == "*") host = "0.0.0.0";
  if (host == "localhost") host = "127.0.0.1";
  const int port = std::stoi(address.substr(colon + 1));
  if (port < 0 || port > 65535) throw std::runtime_error("--http: port out of range");
  return {host, static_cast<unsigned short>(port)};
}

}  // namespace

struct HttpServer::Impl {
  asio::io_context io{1};
  tcp::acceptor acceptor{io};
  Routes routes;
  std::shared_ptr<HttpsContext> tls;
  std::thread thread;

  void accept() {
    acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
      if (ec) return;  // closed
      beast::tcp_stream connection(std::move(socket));
      auto stream = tls ? HttpStream(std::move(connection), tls->current())
                        : HttpStream(std::move(connection));
      std::make_shared<Connection>(std::move(stream), routes)->start();
      accept();
    });
  }
};

HttpServer::HttpServer(const std::string& address, std::shared_ptr<HttpsContext> tls)
    : impl_(std::make_unique<Impl>()) {
  impl_->tls = std::move(tls);
  const auto [host, port] = split_address(address);
  beast::error_code ec;
  const tcp::endpoint endpoint(asio::ip::make_address(host, ec), port);
  if (ec) throw std::runtime_error("--http: bad host '" + host + "': " + ec.message());
  impl_->acceptor.open(endpoint.protocol(), ec);
  if (!ec) impl_->acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) impl_->acceptor.bind(endpoint, ec);
  if (!ec) impl_->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) throw std::runtime_error("cannot listen for HTTP on " + address + ": " + ec.message());
}

HttpServer::~HttpServer() {
  stop();
}

void HttpServer::route(const std::string& path, Handler handler) {
  impl_->routes.handlers[path] = [handler = std::move(handler)](const std::string&) {
    return handler();
  };
}

void HttpServer::route(const std::string& path, AuthorizedHandler handler) {
  impl_->routes.handlers[path] = std::move(handler);
}

void HttpServer::fallback(Fallback handler) {
  impl_->routes.fallback = std::move(handler);
}

void HttpServer::websocket(const std::string& path, UpgradeHandler handler) {
  impl_->routes.websocket_path = path;
  impl_->routes.websocket = std::move(handler);
}

void HttpServer::start() {
  impl_->accept();
  impl_->thread = std::thread([this] { impl_->io.run(); });
}

void HttpServer::stop(const std::function<void()>& drain, const std::function<bool()>& idle,
                      double grace_s) {
  if (!impl_->thread.joinable()) return;
  asio::post(impl_->io, [this, drain] {
    beast::error_code ec;
    impl_->acceptor.close(ec);
    if (drain) drain();
  });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(grace_s);
  while (idle && !idle() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  asio::post(impl_->io, [this] { impl_->io.stop(); });
  impl_->thread.join();
}

int HttpServer::port() const {
  return impl_->acceptor.local_endpoint().port();
}

bool HttpServer::tls() const {
  return impl_->tls != nullptr;
}

}  // namespace softbody::server
