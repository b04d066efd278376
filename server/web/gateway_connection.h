// One browser connection (WebSocket, binary protobuf envelopes). Everything here runs on the HTTP
// I/O thread except the subscription's thread, which waits for states and encodes frames, and
// slow requests, which run on the gateway's workers; both hand their results back by posting.
//
// Outgoing messages wait in bounded places: request replies in order (at most
// GatewayOptions::max_pending_replies, then the connection is closed: the client is not reading),
// the newest force reply (older ones are replaced: a haptic client wants the newest force), and at
// most one state frame. The subscription thread encodes the next frame only once the previous one
// is written, so a slow connection skips states in the session's mailbox (newest wins, counted in
// StateFrame.frames_dropped) and delta frames always refer to the frame the client received.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/websocket/stream.hpp>

#include "server/web/web_gateway.h"
#include "softbody/v1/gateway.pb.h"

namespace softbody::server {

class GatewayConnection : public std::enable_shared_from_this<GatewayConnection> {
 public:
  GatewayConnection(WebGateway& gateway, HttpStream stream);
  ~GatewayConnection();
  void start(UpgradeRequest request);
  // Starts the closing handshake with `code` and `reason` (I/O thread).
  void close(boost::beast::websocket::close_code code, const std::string& reason);
  // Ends the subscription thread and detaches the tool (I/O thread, or after it stopped).
  void release_streams();

 private:
  struct Subscription;
  using Bytes = std::shared_ptr<const std::string>;

  // Messages are read in chunks and the size limit is enforced here, not by Beast: when Beast
  // refuses an oversized message it closes the socket with the rest of the message unread
  // (Boost 1.74's teardown stops draining after one chunk), the kernel answers the client with a
  // reset, and the client's write fails with a broken pipe before it can read the 1009 close.
  // Here an oversized message starts our close handshake and its remaining bytes are discarded.
  void read();
  void on_read(boost::beast::error_code ec);
  void on_message();
  void dispatch(const v1::ClientMessage& message);
  // With a header value ("Bearer TOKEN") or a bare token from an `authenticate` message (whose
  // refusal is answered to `request_id`); true when the connection now acts as the caller.
  bool authenticate(const std::string& credential, bool header, std::uint32_t request_id);
  void subscribe(const v1::ClientMessage& message);
  void unsubscribe();
  void tool_command(const v1::ClientMessage& message);
  void release_tool();
  void run_on_worker(const v1::ClientMessage& message);

  // Outgoing (I/O thread).
  // Request replies and stream ends: in order, at most max_pending_replies waiting.
  void send_reply(const v1::ServerMessage& reply);
  void send_reply(Bytes reply);
  void send_done(std::uint32_t request_id);
  void send_error(std::uint32_t request_id, const grpc::Status& status);
  void offer_frame(long generation, Bytes frame);
  void write_next();
  void finish();

  static Bytes serialize(const v1::ServerMessage& message);

  WebGateway& gateway_;
  Caller caller_ = Caller::anonymous();  // development mode until authenticated
  bool authenticated_ = false;
  boost::beast::websocket::stream<HttpStream> ws_;
  boost::beast::flat_buffer buffer_;
  std::string peer_;

  std::deque<Bytes> replies_;
  Bytes force_, frame_;
  long frame_generation_ = 0;  // the subscription frame_ came from
  bool writing_ = false;
  bool closing_ = false;
  bool discarding_ = false;  // the rest of an oversized message
  bool finished_ = false;
  std::optional<boost::beast::websocket::close_reason> close_reason_;

  std::unique_ptr<Subscription> subscription_;
  long subscription_generation_ = 0;

  std::shared_ptr<Session> tool_session_;
  std::shared_ptr<Tool> tool_;
  long tool_generation_ = 0;
  v1::ServerMessage force_message_;  // reused: one force reply per command
  std::uint64_t forces_coalesced_ = 0;
};

}  // namespace softbody::server
