#include "server/web/gateway_connection.h"
#include "proto/status_details.h"

#include <utility>  // before Asio: Boost 1.74 uses std::exchange without it under C++20

#include <boost/asio/post.hpp>
#include <boost/beast/websocket.hpp>

#include "server/api_error.h"
#include "server/logging.h"
#include "server/sessions/state_stream.h"
#include "server/sessions/tool_commands.h"
#include "server/web/gateway_requests.h"

namespace softbody::server {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;

// The connection's state subscription: a thread that waits for the session's states and encodes
// one frame at a time (see the header).
struct GatewayConnection::Subscription {
  std::shared_ptr<Session> session;
  std::shared_ptr<Subscriber> subscriber;
  std::unique_ptr<StateStream> stream;
  std::mutex mutex;
  std::condition_variable sent;
  bool frame_pending = false;  // encoded, not yet written
  std::atomic<bool> stop{false};
  std::thread thread;
  std::unique_ptr<CallerStreams::Hold> hold;  // counts against the caller's subscription quota

  void frame_written() {
    {
      std::lock_guard lock(mutex);
      frame_pending = false;
    }
    sent.notify_one();
  }

  void end() {
    stop = true;
    subscriber->close(grpc::Status(grpc::StatusCode::CANCELLED, "unsubscribed"));
    sent.notify_one();
    if (thread.joinable()) thread.join();
    session->unsubscribe(subscriber);
  }
};

GatewayConnection::GatewayConnection(WebGateway& gateway, HttpStream stream)
    : gateway_(gateway), ws_(std::move(stream)) {
  beast::error_code ec;
  const auto endpoint = beast::get_lowest_layer(ws_).socket().remote_endpoint(ec);
  peer_ = ec ? "unknown" : endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
  // Tool replies are small and latency-bound: no Nagle delay.
  beast::get_lowest_layer(ws_).socket().set_option(asio::ip::tcp::no_delay(true), ec);
}

GatewayConnection::~GatewayConnection() {
  release_streams();
}

void GatewayConnection::start(UpgradeRequest request) {
  beast::get_lowest_layer(ws_).expires_never();  // the WebSocket's own timeouts take over
  ws_.set_option(websocket::stream_base::timeout::suggested(beast::role_type::server));
  ws_.set_option(websocket::stream_base::decorator(
      [](websocket::response_type& r) { r.set(beast::http::field::server, "softbody-server"); }));
  ws_.read_message_max(0);  // no limit in Beast: on_read enforces it (see read())
  ws_.binary(true);
  // A non-browser client may authenticate with the upgrade's Authorization header; a browser
  // sends an `authenticate` message first (it cannot set headers on a WebSocket).
  if (const auto header = request.find(beast::http::field::authorization); header != request.end())
    authenticate(std::string(header->value()), /*header=*/true, 0);
  ws_.async_accept(request, [self = shared_from_this()](beast::error_code ec) {
    if (ec) {
      spdlog::info("event=websocket_handshake_failed peer={} error={}", self->peer_,
                   logfmt_value(ec.message()));
      return self->finish();
    }
    spdlog::info("event=websocket_connected peer={}", self->peer_);
    self->read();
  });
}

void GatewayConnection::read() {
  constexpr std::size_t kChunk = 64 * 1024;
  ws_.async_read_some(
      buffer_, kChunk,
      [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
}

void GatewayConnection::on_read(beast::error_code ec) {
  if (ec) return finish();
  const std::size_t limit = gateway_.options().max_message_bytes;
  if (discarding_ || buffer_.size() > limit) {
    if (!discarding_) {
      spdlog::info("event=websocket_message_too_big peer={} limit={}", peer_, limit);
      close(websocket::close_code::too_big,
            "message too big: more than " + std::to_string(limit) + " bytes (--max-message-mb)");
    }
    buffer_.consume(buffer_.size());
    discarding_ = !ws_.is_message_done();
    return read();
  }
  if (!ws_.is_message_done()) return read();
  on_message();
}

void GatewayConnection::on_message() {
  const auto data = buffer_.data();
  const std::size_t size = data.size();
  if (closing_) {  // waiting for the client's close frame: ignore what it still sends
    buffer_.consume(size);
    return read();
  }
  v1::ClientMessage message;
  const bool parsed =
      ws_.got_binary() && message.ParseFromArray(data.data(), static_cast<int>(size));
  buffer_.consume(size);
  if (!ws_.got_binary()) {
    gateway_.metrics().websocket_closed_malformed.fetch_add(1, std::memory_order_relaxed);
    close(websocket::close_code::unknown_data,
          "text message: send binary softbody.v1.ClientMessage protobufs");
  } else if (!parsed) {
    gateway_.metrics().websocket_closed_malformed.fetch_add(1, std::memory_order_relaxed);
    close(websocket::close_code::bad_payload,
          "malformed message: " + std::to_string(size) + " bytes are not a ClientMessage");
  } else if (message.body_case() == v1::ClientMessage::BODY_NOT_SET) {
    gateway_.metrics().websocket_closed_malformed.fetch_add(1, std::memory_order_relaxed);
    close(websocket::close_code::bad_payload, "malformed message: ClientMessage has no body");
  } else {
    dispatch(message);
  }
  read();
}

bool GatewayConnection::authenticate(const std::string& credential, bool header,
                                     std::uint32_t request_id) {
  const Authenticator& auth = gateway_.service().authenticator();
  try {
    caller_ = header ? auth.authenticate(credential, TokenCarrier::kHttpHeader)
                     : auth.authenticate_token(credential);
    authenticated_ = true;
    spdlog::info("event=websocket_authenticated peer={} subject={} role={}", peer_,
                 logfmt_value(caller_.subject), role_name(caller_.role));
    return true;
  } catch (const ApiError& e) {
    gateway_.metrics().unauthenticated.fetch_add(1, std::memory_order_relaxed);
    if (!header) send_error(request_id, e.status());
    return false;
  }
}

void GatewayConnection::dispatch(const v1::ClientMessage& message) {
  if (message.body_case() == v1::ClientMessage::kAuthenticate) {
    if (authenticate(message.authenticate().token(), false, message.request_id())) {
      v1::ServerMessage reply;
      reply.set_request_id(message.request_id());
      reply.mutable_authenticated()->set_subject(caller_.subject);
      reply.mutable_authenticated()->set_role(role_name(caller_.role));
      send_reply(reply);
    }
    return;
  }
  if (gateway_.service().authenticator().enabled() && !authenticated_ &&
      message.body_case() != v1::ClientMessage::kPing) {
    gateway_.metrics().unauthenticated.fetch_add(1, std::memory_order_relaxed);
    return send_error(message.request_id(),
                      {grpc::StatusCode::UNAUTHENTICATED,
                       "this server requires a bearer token: send an `authenticate` message "
                       "with it first"});
  }
  if (is_unary_request(message.body_case())) return run_on_worker(message);
  switch (message.body_case()) {
    case v1::ClientMessage::kSubscribe:
      return subscribe(message);
    case v1::ClientMessage::kUnsubscribe:
      unsubscribe();
      return send_done(message.request_id());
    case v1::ClientMessage::kToolCommand:
      return tool_command(message);
    case v1::ClientMessage::kReleaseTool:
      release_tool();
      return send_done(message.request_id());
    case v1::ClientMessage::kPing: {
      v1::ServerMessage reply;
      reply.set_request_id(message.request_id());
      reply.mutable_pong()->set_client_time_s(message.ping().client_time_s());
      reply.mutable_pong()->set_server_time_s(
          std::chrono::duration<double>(Clock::now().time_since_epoch()).count());
      return send_reply(reply);
    }
    default:
      return;  // unreachable: is_unary_request and BODY_NOT_SET are handled before
  }
}

void GatewayConnection::run_on_worker(const v1::ClientMessage& message) {
  auto request = std::make_shared<v1::ClientMessage>(message);
  std::weak_ptr<GatewayConnection> weak = shared_from_this();
  auto executor = ws_.get_executor();
  asio::post(gateway_.workers(),
             [this_gateway = &gateway_, request, weak, executor, caller = caller_] {
               auto reply = std::make_shared<v1::ServerMessage>();
               run_unary_request(this_gateway->service(), caller, *request, *reply);
               asio::post(executor, [weak, reply] {
                 if (auto self = weak.lock()) self->send_reply(*reply);
               });
             });
}

void GatewayConnection::subscribe(const v1::ClientMessage& message) {
  const v1::StreamStateRequest& request = message.subscribe();
  auto next = std::make_unique<Subscription>();
  v1::ServerMessage reply;
  reply.set_request_id(message.request_id());
  try {
    validate_stream_request(request, gateway_.options().max_rate_hz);
    if (gateway_.sessions().shutting_down())
      throw ApiError(grpc::StatusCode::UNAVAILABLE, "the server is shutting down");
    next->session = gateway_.sessions().find_for(caller_, request.session_id(), SessionUse::kWatch);
    // The previous subscription's slot is given back first: moving between sessions at the
    // subscriber limit must work.
    unsubscribe();
    next->hold = gateway_.service().caller_streams().hold_subscription(caller_);
    next->subscriber = next->session->subscribe();
    next->stream = std::make_unique<StateStream>(*next->session, request);
    fill_session_info(*next->session, *reply.mutable_session());
  } catch (const ApiError& e) {
    return send_error(message.request_id(), e.status());
  }
  spdlog::info("event=subscribed session={} peer={} vertices={} rate_hz={}", next->session->id(),
               peer_, next->stream->num_vertices(), request.max_rate_hz());
  send_reply(reply);

  const long generation = ++subscription_generation_;
  Subscription* s = next.get();
  std::weak_ptr<GatewayConnection> weak = shared_from_this();
  auto executor = ws_.get_executor();
  Metrics* metrics = &gateway_.metrics();
  // The thread never owns the connection (a weak pointer locked only on the I/O thread): the
  // connection's destructor joins this thread.
  s->thread = std::thread([s, weak, executor, generation, metrics] {
    v1::ServerMessage out;
    for (;;) {
      {
        std::unique_lock lock(s->mutex);
        s->sent.wait(lock, [s] { return !s->frame_pending || s->stop; });
        if (s->stop) return;
      }
      FrameGaps gaps;
      grpc::Status closed = grpc::Status::OK;
      const auto state = s->stream->next(
          *s->subscriber, [s] { return s->stop.load(); }, gaps, closed);
      if (!state) {
        if (s->stop) return;
        // The session ended the stream (deleted, server shutting down): tell the client.
        out.Clear();
        v1::StreamEnded& ended = *out.mutable_stream_ended();
        ended.set_stream(v1::StreamEnded::STREAM_STATE);
        ended.set_code(static_cast<int>(closed.error_code()));
        ended.set_message(closed.error_message());
        ended.set_session_id(s->session->id());
        if (auto moved = v1::moved_detail(closed)) *ended.mutable_moved() = *moved;
        asio::post(executor, [weak, bytes = serialize(out), generation] {
          auto self = weak.lock();
          if (!self || generation != self->subscription_generation_) return;
          self->send_reply(bytes);
        });
        return;
      }
      out.Clear();
      s->stream->build(*state, gaps, *out.mutable_frame());
      {
        std::lock_guard lock(s->mutex);
        s->frame_pending = true;
      }
      auto bytes = serialize(out);
      metrics->count_frame(gaps.dropped, gaps.skipped, out.frame().positions().size());
      asio::post(executor, [weak, bytes, generation] {
        if (auto self = weak.lock()) self->offer_frame(generation, bytes);
      });
    }
  });
  subscription_ = std::move(next);
}

void GatewayConnection::unsubscribe() {
  if (!subscription_) return;
  ++subscription_generation_;  // frames already posted are dropped
  subscription_->end();
  subscription_.reset();
  frame_.reset();
}

void GatewayConnection::tool_command(const v1::ClientMessage& message) {
  const Clock::time_point received = Clock::now();
  const v1::ToolCommand& command = message.tool_command();
  const std::string& wanted = command.session_id();
  if (!tool_ || (!wanted.empty() && wanted != tool_session_->id())) {
    if (wanted.empty()) {
      return send_error(message.request_id(),
                        {grpc::StatusCode::INVALID_ARGUMENT,
                         "tool_command.session_id: required in the connection's first command"});
    }
    try {
      if (gateway_.sessions().shutting_down())
        throw ApiError(grpc::StatusCode::UNAVAILABLE, "the server is shutting down");
      auto session = gateway_.sessions().find_for(caller_, wanted, SessionUse::kSteer);
      release_tool();
      tool_ = session->attach_tool();
      tool_session_ = std::move(session);
    } catch (const ApiError& e) {
      return send_error(message.request_id(), e.status());
    }
    const long generation = ++tool_generation_;
    std::weak_ptr<GatewayConnection> weak = shared_from_this();
    auto executor = ws_.get_executor();
    std::lock_guard lock(tool_->mutex);
    tool_->close = [weak, executor, generation,
                    session_id = tool_session_->id()](const grpc::Status& status) {
      v1::ServerMessage out;
      v1::StreamEnded& ended = *out.mutable_stream_ended();
      ended.set_stream(v1::StreamEnded::STREAM_TOOL);
      ended.set_code(static_cast<int>(status.error_code()));
      ended.set_message(status.error_message());
      ended.set_session_id(session_id);
      if (auto moved = v1::moved_detail(status)) *ended.mutable_moved() = *moved;
      asio::post(executor, [weak, generation, bytes = serialize(out)] {
        auto self = weak.lock();
        if (!self || generation != self->tool_generation_) return;
        self->release_tool();
        self->send_reply(bytes);
      });
    };
    spdlog::info("event=tool_attached session={} tool={} peer={}", tool_session_->id(), tool_->id(),
                 peer_);
  }
  // A waiting rejection is never replaced (the user must learn why a command was refused): it
  // joins the replies' queue, which is written before the force slot, so the order holds.
  if (force_ && !force_message_.force().rejected().empty()) send_reply(std::exchange(force_, {}));
  // A waiting force is replaced by the newest; a step's contact problem, sent with its first
  // reply only, moves to the newer reply when that has none (force_message_ still holds the
  // waiting reply while force_ is set).
  v1::ContactProblemModel carried;
  const bool carry = force_ && force_message_.force().has_contact_problem();
  const std::uint32_t superseded = force_ ? force_message_.force().superseded() + 1 : 0;
  if (carry) carried.Swap(force_message_.mutable_force()->mutable_contact_problem());
  force_message_.Clear();
  answer_tool_command(*tool_session_, *tool_, caller_, gateway_.service().caller_streams(),
                      gateway_.sessions().tool_meshes(), command, received, gateway_.metrics(),
                      *force_message_.mutable_force());
  if (force_) {
    ++forces_coalesced_;
    gateway_.metrics().websocket_force_replies_coalesced.fetch_add(1, std::memory_order_relaxed);
  }
  // (Not into a reply whose tool is no longer a constraint one: auto after a settings change.)
  if (carry && !force_message_.force().has_contact_problem() &&
      force_message_.force().contact_model() == v1::CONTACT_MODEL_CONSTRAINT)
    force_message_.mutable_force()->mutable_contact_problem()->Swap(&carried);
  force_message_.mutable_force()->set_superseded(superseded);
  force_ = serialize(force_message_);
  write_next();
}

void GatewayConnection::release_tool() {
  if (!tool_) return;
  ++tool_generation_;
  {
    std::lock_guard lock(tool_->mutex);
    tool_->close = nullptr;
  }
  tool_session_->detach_tool(tool_);
  spdlog::info("event=tool_detached session={} tool={} peer={}", tool_session_->id(), tool_->id(),
               peer_);
  tool_.reset();
  tool_session_.reset();
  force_.reset();
}

void GatewayConnection::release_streams() {
  unsubscribe();
  release_tool();
}

GatewayConnection::Bytes GatewayConnection::serialize(const v1::ServerMessage& message) {
  auto bytes = std::make_shared<std::string>();
  message.SerializeToString(bytes.get());
  return bytes;
}

void GatewayConnection::send_reply(const v1::ServerMessage& reply) {
  send_reply(serialize(reply));
}

void GatewayConnection::send_reply(Bytes reply) {
  if (closing_) return;
  if (replies_.size() >= gateway_.options().max_pending_replies) {
    return close(websocket::close_code::policy_error,
                 "the client is not reading replies (" +
                     std::to_string(gateway_.options().max_pending_replies) + " pending)");
  }
  replies_.push_back(std::move(reply));
  write_next();
}

void GatewayConnection::send_done(std::uint32_t request_id) {
  v1::ServerMessage reply;
  reply.set_request_id(request_id);
  reply.mutable_done();
  send_reply(reply);
}

void GatewayConnection::send_error(std::uint32_t request_id, const grpc::Status& status) {
  v1::ServerMessage reply;
  reply.set_request_id(request_id);
  set_error(status, reply);
  send_reply(reply);
}

void GatewayConnection::offer_frame(long generation, Bytes frame) {
  if (generation != subscription_generation_ || closing_) return;
  frame_ = std::move(frame);
  frame_generation_ = generation;
  write_next();
}

void GatewayConnection::write_next() {
  if (writing_ || finished_) return;
  Bytes next;
  long frame_generation = 0;  // of the frame written, 0 for other messages
  if (!replies_.empty()) {
    next = std::move(replies_.front());
    replies_.pop_front();
  } else if (force_) {
    next = std::move(force_);
    force_.reset();
  } else if (frame_) {
    next = std::move(frame_);
    frame_.reset();
    frame_generation = frame_generation_;
  } else if (closing_ && close_reason_) {
    writing_ = true;  // a close counts as a write: nothing may follow it
    ws_.async_close(*close_reason_, [self = shared_from_this()](beast::error_code) {
      // The pending read completes when the client answers the close (or the timeout).
    });
    close_reason_.reset();
    return;
  } else {
    return;
  }
  writing_ = true;
  ws_.async_write(asio::buffer(*next), [self = shared_from_this(), next, frame_generation](
                                           beast::error_code ec, std::size_t) {
    self->writing_ = false;
    // Lets the subscription encode its next frame (not a newer subscription's: it has its own).
    if (frame_generation != 0 && frame_generation == self->subscription_generation_ &&
        self->subscription_)
      self->subscription_->frame_written();
    if (ec) return self->finish();
    self->write_next();
  });
}

void GatewayConnection::close(websocket::close_code code, const std::string& reason) {
  if (closing_ || finished_) return;
  closing_ = true;
  spdlog::info("event=websocket_closing peer={} code={} reason={}", peer_, static_cast<int>(code),
               logfmt_value(reason));
  replies_.clear();
  force_.reset();
  frame_.reset();
  // A close reason is at most 123 bytes (RFC 6455 §5.5).
  close_reason_ = websocket::close_reason(code, reason.substr(0, 123));
  write_next();
}

void GatewayConnection::finish() {
  if (finished_) return;
  finished_ = true;
  release_streams();
  replies_.clear();
  beast::error_code ec;
  beast::get_lowest_layer(ws_).socket().shutdown(asio::ip::tcp::socket::shutdown_both, ec);
  beast::get_lowest_layer(ws_).socket().close(ec);
  spdlog::info("event=websocket_disconnected peer={} forces_coalesced={}", peer_,
               forces_coalesced_);
  gateway_.forget(this);
}

}  // namespace softbody::server
