// The HTTP port's byte stream: plain TCP, or TLS over TCP when the server has a certificate
// (--tls-cert). One type for both, so that the HTTP connection and the WebSocket gateway are
// written once: Beast's streams are compile-time types, and the choice is made at run time.
#pragma once

#include <memory>
#include <optional>
#include <utility>  // before Asio: Boost 1.74 uses std::exchange without it under C++20

#include <boost/asio/ssl/context.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <boost/beast/websocket/teardown.hpp>

namespace softbody::server {

class HttpStream {
 public:
  using TlsStream = boost::beast::ssl_stream<boost::beast::tcp_stream>;
  using next_layer_type = boost::beast::tcp_stream;
  using executor_type = next_layer_type::executor_type;

  explicit HttpStream(boost::beast::tcp_stream plain) : plain_(std::move(plain)) {}
  // TLS with `context` (kept alive as long as the connection: a renewed certificate makes a new
  // context for new connections while this one goes on with the old).
  HttpStream(boost::beast::tcp_stream plain, std::shared_ptr<boost::asio::ssl::context> context)
      : context_(std::move(context)),
        tls_(std::make_unique<TlsStream>(std::move(plain), *context_)) {}

  bool is_tls() const { return tls_ != nullptr; }
  TlsStream& tls() { return *tls_; }
  // The TCP stream (under TLS when there is TLS): timeouts, the socket, shutdown.
  next_layer_type& next_layer() { return tls_ ? tls_->next_layer() : *plain_; }
  executor_type get_executor() { return next_layer().get_executor(); }

  template <class MutableBuffers, class Handler>
  void async_read_some(const MutableBuffers& buffers, Handler&& handler) {
    if (tls_) return tls_->async_read_some(buffers, std::forward<Handler>(handler));
    plain_->async_read_some(buffers, std::forward<Handler>(handler));
  }

  template <class ConstBuffers, class Handler>
  void async_write_some(const ConstBuffers& buffers, Handler&& handler) {
    if (tls_) return tls_->async_write_some(buffers, std::forward<Handler>(handler));
    plain_->async_write_some(buffers, std::forward<Handler>(handler));
  }

 private:
  std::optional<boost::beast::tcp_stream> plain_;  // without TLS
  std::shared_ptr<boost::asio::ssl::context> context_;
  std::unique_ptr<TlsStream> tls_;  // with TLS
};

// How a WebSocket over this stream ends its connection (Beast finds these by argument-dependent
// lookup): TLS sends its close_notify first, plain TCP shuts down.
inline void teardown(boost::beast::role_type role, HttpStream& stream,
                     boost::beast::error_code& ec) {
  using boost::beast::websocket::teardown;
  if (stream.is_tls()) return teardown(role, stream.tls(), ec);
  teardown(role, stream.next_layer(), ec);
}

template <class TeardownHandler>
void async_teardown(boost::beast::role_type role, HttpStream& stream, TeardownHandler&& handler) {
  using boost::beast::websocket::async_teardown;
  if (stream.is_tls())
    return async_teardown(role, stream.tls(), std::forward<TeardownHandler>(handler));
  async_teardown(role, stream.next_layer(), std::forward<TeardownHandler>(handler));
}

}  // namespace softbody::server
