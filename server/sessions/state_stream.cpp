#include "server/sessions/state_stream.h"

#include <cmath>
#include <string>

#include "server/api/obstacle_convert.h"
#include "server/api/proto_convert.h"
#include "server/api_error.h"

namespace softbody::server {
namespace {

std::vector<Index> streamed_vertices(const Session& session, v1::VertexSet set) {
  if (set != v1::VERTEX_SET_ALL) return session.topology().boundary_vertices();
  std::vector<Index> ids(static_cast<size_t>(session.topology().num_vertices()));
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<Index>(i);
  return ids;
}

// The quantization grid around the streamed vertices' rest positions.
codec::Grid stream_grid(const Session& session, const std::vector<Index>& ids, double bound) {
  Vec3Array rest;
  rest.reserve(ids.size());
  for (Index v : ids) rest.push_back(session.mesh().vertices[static_cast<size_t>(v)]);
  const BoundingBox box = bounding_box(rest);
  return codec::grid_for_box(box.min.data(), box.max.data(), bound == 0 ? 1e-4 : bound);
}

}  // namespace

void validate_stream_request(const v1::StreamStateRequest& request, double max_rate_hz) {
  const double rate = request.max_rate_hz();
  if (!std::isfinite(rate) || rate < 0 || rate > max_rate_hz)
    invalid_argument("max_rate_hz", "must lie in [0, " + std::to_string(max_rate_hz) + "]");
  const double bound = request.error_bound();
  if (!std::isfinite(bound) || (bound != 0 && (bound < 1e-7 || bound > 1e-2)))
    invalid_argument("error_bound", "must be 0 (1e-4) or lie in [1e-7, 1e-2]");
  if (request.keyframe_interval() < 0 || request.keyframe_interval() > 100000)
    invalid_argument("keyframe_interval", "must lie in [0, 100000]");
  if (!v1::VertexSet_IsValid(request.vertices()))
    invalid_argument("vertices", "unknown vertex set");
  if (!v1::PositionEncoding_IsValid(request.encoding()))
    invalid_argument("encoding", "unknown encoding");
}

StateStream::StateStream(const Session& session, const v1::StreamStateRequest& request)
    : ids_(streamed_vertices(session, request.vertices())),
      encoder_(stream_grid(session, ids_, request.error_bound()),
               request.keyframe_interval() == 0 ? 120 : request.keyframe_interval(),
               request.encoding() == v1::POSITION_ENCODING_RAW_FLOAT32),
      interval_(request.max_rate_hz() > 0
                    ? std::chrono::duration_cast<Clock::duration>(
                          std::chrono::duration<double>(1.0 / request.max_rate_hz()))
                    : Clock::duration::zero()),
      xyz_(3 * ids_.size()) {}

std::shared_ptr<const PublishedState> StateStream::next(Subscriber& subscriber,
                                                        const std::function<bool()>& cancelled,
                                                        FrameGaps& gaps, grpc::Status& closed) {
  std::shared_ptr<const PublishedState> state;
  gaps = {};
  // States the mailbox replaced before this stream came back for the next one: dropped when it
  // comes after its send time (it was still writing the previous frame: a slow subscriber or
  // connection), skipped when it is ahead of its requested rate (they would not have been sent).
  const bool on_schedule = Clock::now() < next_send_;
  std::uint32_t replaced = 0;
  while (!state) {
    if (cancelled()) return nullptr;
    state = subscriber.take(Clock::now() + std::chrono::milliseconds(100), replaced);
    if (!state && subscriber.closed(closed)) return nullptr;
  }
  (on_schedule ? gaps.skipped : gaps.dropped) += replaced;
  // Rate limit: hold until the next send time, then send the newest state (the older ones, taken
  // or replaced meanwhile, are skipped by the subscriber's choice). Send times advance by the
  // interval, so the average rate is the one asked for even when steps do not divide it.
  while (Clock::now() < next_send_) {
    if (cancelled()) return nullptr;
    std::uint32_t more = 0;
    const auto wake = std::min(next_send_, Clock::now() + std::chrono::milliseconds(100));
    if (auto newer = subscriber.take(wake, more)) {
      gaps.skipped += more + 1;
      state = std::move(newer);
    } else if (subscriber.closed(closed)) {
      return nullptr;
    }
  }
  if (interval_ > Clock::duration::zero()) {
    next_send_ += interval_;
    if (Clock::now() - next_send_ > interval_) next_send_ = Clock::now();
  }
  return state;
}

void StateStream::build(const PublishedState& state, const FrameGaps& gaps, v1::StateFrame& frame) {
  for (size_t i = 0; i < ids_.size(); ++i) {
    const Vec3& p = state.p[static_cast<size_t>(ids_[i])];
    for (int k = 0; k < 3; ++k) xyz_[3 * i + static_cast<size_t>(k)] = p[k];
  }
  encoder_.encode(xyz_, sequence_ == 0, bytes_);
  frame.Clear();
  frame.set_sequence(sequence_++);
  frame.set_positions(bytes_.data(), bytes_.size());
  to_proto(state, *frame.mutable_stats());
  frame.set_frames_dropped(gaps.dropped);
  frame.set_frames_skipped(gaps.skipped);
  frame.set_num_vertices(static_cast<int>(ids_.size()));
  frame.set_server_time_s(std::chrono::duration<double>(state.finished.time_since_epoch()).count());
  for (const ObstaclePose& pose : state.obstacle_poses) to_proto(pose, *frame.add_obstacle_poses());
}

}  // namespace softbody::server
