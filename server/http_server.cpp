#include "server/http_server.h"

#include <optional>
#include <utility>  // before Asio: Boost 1.74 uses std::exchange without it under C++20

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "server/logging.h"

namespace softbody::server {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

// One connection: read a request, answer, repeat while keep-alive.
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(tcp::socket socket, const std::map<std::string, HttpServer::Handler>& routes)
      : stream_(std::move(socket)), routes_(routes) {}

  void start() { read(); }

 private:
  void read() {
    request_ = {};
    parser_.emplace();
    parser_->body_limit(64 * 1024);
    stream_.expires_after(std::chrono::seconds(30));
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
    auto it = routes_.find(path);
    HttpResponse r;
    if (request_.method() != http::verb::get && request_.method() != http::verb::head) {
      r = {405, "text/plain; charset=utf-8", "only GET is supported\n"};
    } else if (it == routes_.end()) {
      r = {404, "text/plain; charset=utf-8", "not found: " + path + "\n"};
    } else {
      try {
        r = it->second();
      } catch (const std::exception& e) {
        r = {500, "text/plain; charset=utf-8", std::string("internal error: ") + e.what() + "\n"};
      }
    }
    response->result(static_cast<http::status>(r.status));
    response->set(http::field::content_type, r.content_type);
    response->body() = request_.method() == http::verb::head ? "" : std::move(r.body);
    response->prepare_payload();
    http::async_write(stream_, *response,
                      [self = shared_from_this(), response](beast::error_code ec, std::size_t) {
                        if (ec || !response->keep_alive()) return self->close();
                        self->read();
                      });
  }

  void close() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::request<http::string_body> request_;
  const std::map<std::string, HttpServer::Handler>& routes_;
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
  std::map<std::string, Handler> routes;
  std::thread thread;

  void accept() {
    acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
      if (ec) return;  // closed
      std::make_shared<Connection>(std::move(socket), routes)->start();
      accept();
    });
  }
};

HttpServer::HttpServer(const std::string& address) : impl_(std::make_unique<Impl>()) {
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
  impl_->routes[path] = std::move(handler);
}

void HttpServer::start() {
  impl_->accept();
  impl_->thread = std::thread([this] { impl_->io.run(); });
}

void HttpServer::stop() {
  if (!impl_->thread.joinable()) return;
  asio::post(impl_->io, [this] {
    beast::error_code ec;
    impl_->acceptor.close(ec);
    impl_->io.stop();
  });
  impl_->thread.join();
}

int HttpServer::port() const {
  return impl_->acceptor.local_endpoint().port();
}

}  // namespace softbody::server
