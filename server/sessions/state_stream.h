// One state subscription's frames, shared by the gRPC StreamState call and the browser gateway:
// request validation, the streamed vertex set, the quantization grid, rate limiting (newest wins)
// and the StateFrame of a published state.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "codec/frame_codec.h"
#include "server/sessions/session.h"
#include "softbody/v1/state.pb.h"

namespace softbody::server {

// Throws ApiError naming the field at fault.
void validate_stream_request(const v1::StreamStateRequest& request, double max_rate_hz);

// The steps between two frames of a stream that were not sent.
struct FrameGaps {
  // Missed while the stream was behind its schedule (still writing after its next send time, or
  // with no rate limit at all): a slow subscriber or connection.
  std::uint32_t dropped = 0;
  // Not sent because the stream was ahead of its requested rate (max_rate_hz): by choice.
  std::uint32_t skipped = 0;
};

class StateStream {
 public:
  StateStream(const Session& session, const v1::StreamStateRequest& request);

  // Waits for the next state to send, holding back to the requested rate; the older states not
  // sent meanwhile count in `gaps`. Returns null when the subscriber was closed (its status in
  // `closed`) or `cancelled()` turned true; checks it at least every 100 ms.
  std::shared_ptr<const PublishedState> next(Subscriber& subscriber,
                                             const std::function<bool()>& cancelled,
                                             FrameGaps& gaps, grpc::Status& closed);
  // Encodes `state` as this stream's next frame.
  void build(const PublishedState& state, const FrameGaps& gaps, v1::StateFrame& frame);
  std::size_t num_vertices() const { return ids_.size(); }

 private:
  std::vector<Index> ids_;
  codec::FrameEncoder encoder_;
  Clock::duration interval_;
  Clock::time_point next_send_ = Clock::now();
  std::vector<double> xyz_;
  std::vector<std::uint8_t> bytes_;
  std::uint64_t sequence_ = 0;
};

}  // namespace softbody::server
