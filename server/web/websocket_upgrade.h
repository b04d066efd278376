// What the HTTP server hands to the WebSocket gateway when a request asks for an upgrade: the
// connection's stream (plain or TLS) and the upgrade request (called on the HTTP I/O thread).
#pragma once

#include <functional>
#include <utility>  // before Asio: Boost 1.74 uses std::exchange without it under C++20

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include "server/web/http_stream.h"

namespace softbody::server {

using UpgradeRequest = boost::beast::http::request<boost::beast::http::string_body>;
using UpgradeHandler = std::function<void(HttpStream, UpgradeRequest)>;

}  // namespace softbody::server
