#include "client-cpp/client/state_subscription.h"

#include "client-cpp/client/client.h"

#include <algorithm>

namespace softbody::client {

namespace v1 = softbody::v1;

StateSubscription::StateSubscription(Client& client, std::string session_id,
                                     SubscriptionOptions options, FrameHandler on_frame,
                                     EndHandler on_end)
    : client_(client),
      session_id_(std::move(session_id)),
      options_(options),
      on_frame_(std::move(on_frame)),
      on_end_(std::move(on_end)) {
  thread_ = std::thread([this] { run(); });
}

StateSubscription::~StateSubscription() {
  stop();
}

void StateSubscription::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    if (active_context_) active_context_->TryCancel();
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::optional<Error> StateSubscription::end_error() const {
  std::lock_guard lock(mutex_);
  return end_error_;
}

grpc::Status StateSubscription::read_one_stream(int connection, bool& got_frames) {
  grpc::ClientContext ctx;
  client_.authorize(ctx);
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return {grpc::StatusCode::CANCELLED, "subscription stopped"};
    active_context_ = &ctx;
  }
  v1::StreamStateRequest request;
  request.set_session_id(session_id_);
  request.set_max_rate_hz(options_.max_rate_hz);
  request.set_vertices(options_.all_vertices ? v1::VERTEX_SET_ALL : v1::VERTEX_SET_SURFACE);
  request.set_encoding(options_.raw_float32 ? v1::POSITION_ENCODING_RAW_FLOAT32
                                            : v1::POSITION_ENCODING_QUANTIZED);
  request.set_error_bound(options_.error_bound);
  request.set_keyframe_interval(options_.keyframe_interval);
  Client::Host host = client_.host();
  stream_host_ = host.address;
  auto reader = host.stub.StreamState(&ctx, request);

  codec::FrameDecoder decoder;  // a new stream starts with a keyframe
  v1::StateFrame frame;
  DecodedFrame decoded;
  decoded.connection = connection;
  std::string error;
  while (reader->Read(&frame)) {
    const auto& bytes = frame.positions();
    const std::span<const std::uint8_t> view(reinterpret_cast<const std::uint8_t*>(bytes.data()),
                                             bytes.size());
    if (!decoder.decode(view, decoded.positions, error)) {
      ++decode_errors_;  // the decoder waits for the next keyframe
      continue;
    }
    got_frames = true;
    decoded.sequence = frame.sequence();
    decoded.stats = frame.stats();
    decoded.frames_dropped = frame.frames_dropped();
    decoded.frames_skipped = frame.frames_skipped();
    decoded.server_time_s = frame.server_time_s();
    decoded.encoded_bytes = bytes.size();
    decoded.keyframe = decoder.last().kind != codec::FrameKind::kDelta;
    decoded.received_at = std::chrono::steady_clock::now();
    ++frames_;
    if (on_frame_) on_frame_(decoded);
  }
  grpc::Status status = reader->Finish();
  std::lock_guard lock(mutex_);
  active_context_ = nullptr;
  if (stopping_) return {grpc::StatusCode::CANCELLED, "subscription stopped"};
  return status;
}

void StateSubscription::run() {
  std::chrono::milliseconds backoff = options_.initial_backoff;
  FailureStreak streak(options_.give_up_after);
  Error end;
  for (int connection = 0;; ++connection) {
    bool got_frames = false;
    const grpc::Status status = read_one_stream(connection, got_frames);
    end = Error::from(status);
    if (status.ok()) end = {grpc::StatusCode::OK, "stream ended"};
    if (got_frames) {  // it worked for a while: start over
      backoff = options_.initial_backoff;
      streak.succeeded();
    }
    if (!options_.reconnect || end.code == grpc::StatusCode::OK) break;
    {
      std::lock_guard lock(mutex_);
      if (stopping_) break;
    }
    if (client_.follow(end, stream_host_)) {
      // Another host has (or will restore) the session: go there now.
      backoff = options_.initial_backoff;
      ++reconnects_;
      continue;
    }
    if (!streak.failed(end)) {
      end = streak.verdict();
      break;
    }
    if (options_.on_retry) options_.on_retry(end, backoff);
    std::unique_lock lock(mutex_);
    if (wake_.wait_for(lock, backoff, [this] { return stopping_; })) {
      end = {grpc::StatusCode::CANCELLED, "subscription stopped"};
      break;
    }
    backoff = std::min(2 * backoff, options_.max_backoff);
    ++reconnects_;
  }
  {
    std::lock_guard lock(mutex_);
    end_error_ = end;
  }
  ended_ = true;
  if (on_end_) on_end_(end);
}

}  // namespace softbody::client
