// TLS for the HTTP port (browser client, WebSocket, /metrics): the same certificate and key files
// as the gRPC port, reread when their contents change (looked at, at most once per reload
// interval, when a connection arrives), so a renewed certificate serves new connections while
// open WebSockets go on with the one they started with. A renewal caught half-written (a new
// certificate beside the old key) is not taken until both match; until then the old pair serves.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <utility>  // before Asio: Boost 1.74 uses std::exchange without it under C++20

#include <boost/asio/ssl/context.hpp>

#include "server/tls_files.h"

namespace softbody::server {

class HttpsContext {
 public:
  // Loads the pair now; throws std::runtime_error naming the file at fault.
  explicit HttpsContext(TlsFiles files);

  // The context for a new connection, reloaded first when the files changed. Called on the HTTP
  // I/O thread only.
  std::shared_ptr<boost::asio::ssl::context> current();

 private:
  void reload_if_changed();

  TlsFiles files_;
  std::string certificate_pem_, key_pem_;  // what context_ was made of
  std::shared_ptr<boost::asio::ssl::context> context_;
  std::chrono::steady_clock::time_point next_look_;
};

}  // namespace softbody::server
