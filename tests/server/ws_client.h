// A blocking WebSocket client (Boost.Beast) speaking the gateway's envelopes, for the gateway's
// integration tests, over plain TCP (WsClient) or TLS (WssClient, trusting one authority). Every
// read has a deadline so that a broken server fails a test, not hangs it.
#pragma once

#include <utility>  // before Asio: Boost 1.74 uses std::exchange without it under C++20

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <optional>
#include <string>
#include <type_traits>

#include "softbody/v1/gateway.pb.h"

namespace softbody::test {

namespace beast = boost::beast;
namespace websocket = beast::websocket;

namespace ssl = boost::asio::ssl;

// Makes `stream` verify the server's certificate against `ca_file` (PEM) and the name `host`.
template <class TlsStream>
void verify_server(ssl::context& context, TlsStream& stream, const std::string& ca_file,
                   const std::string& host) {
  context.load_verify_file(ca_file);
  stream.set_verify_mode(ssl::verify_peer);
  stream.set_verify_callback(ssl::host_name_verification(host));
}

template <class NextLayer>
class BasicWsClient {
  static constexpr bool kTls = !std::is_same_v<NextLayer, beast::tcp_stream>;

 public:
  // Connects and upgrades; `origin` empty sends no Origin header. Throws beast::system_error
  // when refused.
  explicit BasicWsClient(int port, const std::string& origin = "") requires(!kTls) : ws_(io_) {
    connect(port, origin);
  }

  // Over TLS to "localhost:port", trusting only the authority in `ca_file`. Throws
  // beast::system_error when the handshake fails (e.g. a certificate of another authority).
  BasicWsClient(int port, const std::string& ca_file, const std::string& origin) requires(kTls)
      : ws_(io_, tls_) {
    verify_server(tls_, ws_.next_layer(), ca_file, "localhost");
    connect(port, origin);
  }

  // The HTTP status an upgrade request from `origin` gets (101 when accepted) and the body of a
  // refusal (a plain HTTP exchange: Beast's client does not report the refusal's status).
  static std::pair<int, std::string> try_upgrade(int port, const std::string& origin) {
    namespace http = beast::http;
    boost::asio::io_context io;
    beast::tcp_stream stream(io);
    boost::asio::ip::tcp::resolver resolver(io);
    stream.expires_after(std::chrono::seconds(10));
    stream.connect(resolver.resolve("127.0.0.1", std::to_string(port)));
    http::request<http::empty_body> request(http::verb::get, "/ws", 11);
    request.set(http::field::host, "127.0.0.1:" + std::to_string(port));
    request.set(http::field::connection, "Upgrade");
    request.set(http::field::upgrade, "websocket");
    request.set(http::field::sec_websocket_version, "13");
    request.set(http::field::sec_websocket_key, "dGhlIHNhbXBsZSBub25jZQ==");
    if (!origin.empty()) request.set(http::field::origin, origin);
    http::write(stream, request);
    beast::flat_buffer buffer;
    http::response<http::string_body> response;  // a 101 has no body: read returns after it
    beast::error_code ec;
    http::read(stream, buffer, response, ec);
    return {static_cast<int>(response.result_int()), response.body()};
  }

  void send(const softbody::v1::ClientMessage& message) {
    send_raw(message.SerializeAsString(), true);
  }
  void send_raw(const std::string& bytes, bool binary) {
    ws_.binary(binary);
    ws_.write(boost::asio::buffer(bytes));
    ws_.binary(true);
  }

  // The next message, or nullopt when the connection closed (reason in close_reason()).
  std::optional<softbody::v1::ServerMessage> receive(double timeout_s = 20) {
    beast::flat_buffer buffer;
    beast::get_lowest_layer(ws_).expires_after(
        std::chrono::milliseconds(static_cast<int>(timeout_s * 1000)));
    beast::error_code ec;
    ws_.read(buffer, ec);
    if (ec) {
      error_ = ec;
      return std::nullopt;
    }
    softbody::v1::ServerMessage message;
    if (!message.ParseFromArray(buffer.data().data(), static_cast<int>(buffer.size())))
      throw std::runtime_error("server sent a malformed ServerMessage");
    return message;
  }

  // Reads until the reply to `request_id` (frames and force replies on the way are skipped).
  softbody::v1::ServerMessage reply_to(std::uint32_t request_id) {
    for (;;) {
      auto m = receive();
      if (!m)
        throw std::runtime_error("connection ended before reply " + std::to_string(request_id) +
                                 ": " + error_.message());
      if (m->request_id() == request_id) return *m;
    }
  }

  // Sends `message` with a fresh request id and returns the reply.
  softbody::v1::ServerMessage call(softbody::v1::ClientMessage message) {
    message.set_request_id(++next_id_);
    send(message);
    return reply_to(next_id_);
  }

  websocket::close_reason close_reason() const { return ws_.reason(); }
  beast::error_code error() const { return error_; }

 private:
  void connect(int port, const std::string& origin) {
    boost::asio::ip::tcp::resolver resolver(io_);
    beast::get_lowest_layer(ws_).expires_after(std::chrono::seconds(10));
    beast::get_lowest_layer(ws_).connect(resolver.resolve("127.0.0.1", std::to_string(port)));
    if constexpr (kTls) ws_.next_layer().handshake(ssl::stream_base::client);
    ws_.set_option(websocket::stream_base::decorator([origin](websocket::request_type& r) {
      if (!origin.empty()) r.set(beast::http::field::origin, origin);
    }));
    ws_.handshake((kTls ? "localhost:" : "127.0.0.1:") + std::to_string(port), "/ws");
    ws_.binary(true);
  }

  boost::asio::io_context io_;
  ssl::context tls_{ssl::context::tls_client};  // used by WssClient only
  websocket::stream<NextLayer> ws_;
  beast::error_code error_;
  std::uint32_t next_id_ = 0;
};

using WsClient = BasicWsClient<beast::tcp_stream>;
using WssClient = BasicWsClient<beast::ssl_stream<beast::tcp_stream>>;

// A GET over HTTPS to localhost:port trusting only `ca_file`: status and body. Throws
// beast::system_error when the TLS handshake fails.
inline std::pair<int, std::string> https_get(int port, const std::string& path,
                                             const std::string& ca_file) {
  namespace http = beast::http;
  boost::asio::io_context io;
  ssl::context context(ssl::context::tls_client);
  beast::ssl_stream<beast::tcp_stream> stream(io, context);
  verify_server(context, stream, ca_file, "localhost");
  boost::asio::ip::tcp::resolver resolver(io);
  beast::get_lowest_layer(stream).expires_after(std::chrono::seconds(10));
  beast::get_lowest_layer(stream).connect(resolver.resolve("127.0.0.1", std::to_string(port)));
  stream.handshake(ssl::stream_base::client);
  http::request<http::empty_body> request(http::verb::get, path, 11);
  request.set(http::field::host, "localhost:" + std::to_string(port));
  http::write(stream, request);
  beast::flat_buffer buffer;
  http::response<http::string_body> response;
  http::read(stream, buffer, response);
  return {static_cast<int>(response.result_int()), response.body()};
}

}  // namespace softbody::test
