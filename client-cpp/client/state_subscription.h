// A live subscription to a session's state frames. Runs its own thread: reads frames, decodes them
// with the shared codec, hands them on, and reconnects with exponential backoff when the stream
// breaks for a transient reason (server restarting, network) or the session moved to another host
// (migrated, or drained to the snapshot store); a new stream starts with a keyframe, so decoding
// resumes exactly.
#pragma once

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "client-cpp/client/failure_streak.h"
#include "client-cpp/client/result.h"
#include "codec/frame_codec.h"
#include "softbody/v1/simulation_service.grpc.pb.h"

namespace softbody::client {

class Client;

struct SubscriptionOptions {
  double max_rate_hz = 60;
  bool all_vertices = false;  // false: the surface (Topology.surface_vertex_ids order)
  bool raw_float32 = false;
  double error_bound = 0;     // 0: the server's default (1e-4 of the diagonal)
  int keyframe_interval = 0;  // 0: the server's default
  bool reconnect = true;
  std::chrono::milliseconds initial_backoff{100};
  std::chrono::milliseconds max_backoff{5000};
  // Reconnection ends the subscription when no stream has worked for this long (negative:
  // never), with the first failure of that time as its error (FailureStreak).
  std::chrono::milliseconds give_up_after{-1};
  // Told of each failure the subscription will retry, and how long it waits first (tools show
  // it: "UNAVAILABLE: the server is shutting down; reconnecting").
  std::function<void(const Error&, std::chrono::milliseconds backoff)> on_retry;
};

struct DecodedFrame {
  std::uint64_t sequence = 0;    // on the current stream
  std::vector<float> positions;  // 3 per vertex [m]
  softbody::v1::StepStatistics stats;
  std::uint32_t frames_dropped = 0;  // steps missed because this subscriber was slower
  std::uint32_t frames_skipped = 0;  // steps not sent because of the requested max_rate_hz
  double server_time_s = 0;
  std::size_t encoded_bytes = 0;
  bool keyframe = false;
  int connection = 0;  // 0 for the first stream, +1 per reconnection
  std::chrono::steady_clock::time_point received_at;
};

class StateSubscription {
 public:
  using FrameHandler = std::function<void(const DecodedFrame&)>;
  // Called once when the subscription ends for good (not retried, or stopped: CANCELLED).
  using EndHandler = std::function<void(const Error&)>;

  // Streams from `client`'s current host, following the session when it moves (Client::follow).
  StateSubscription(Client& client, std::string session_id, SubscriptionOptions options,
                    FrameHandler on_frame, EndHandler on_end);
  ~StateSubscription();
  StateSubscription(const StateSubscription&) = delete;
  StateSubscription& operator=(const StateSubscription&) = delete;

  void stop();
  bool running() const { return !ended_.load(); }
  long frames() const { return frames_.load(); }
  long reconnects() const { return reconnects_.load(); }
  long decode_errors() const { return decode_errors_.load(); }
  // The error that ended the subscription (set once it ended).
  std::optional<Error> end_error() const;

 private:
  void run();
  grpc::Status read_one_stream(int connection, bool& got_frames);

  Client& client_;
  std::string session_id_;
  SubscriptionOptions options_;
  FrameHandler on_frame_;
  EndHandler on_end_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  grpc::ClientContext* active_context_ = nullptr;  // guarded by mutex_
  bool stopping_ = false;                          // guarded by mutex_
  std::optional<Error> end_error_;                 // guarded by mutex_
  std::atomic<bool> ended_{false};
  std::atomic<long> frames_{0}, reconnects_{0}, decode_errors_{0};
  std::string stream_host_;  // where the current stream went (the subscription's thread only)
  std::thread thread_;
};

}  // namespace softbody::client
