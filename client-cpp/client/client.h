// softbody::client::Client: a small typed API over the generated gRPC stubs (docs/client-cpp.md).
// Every unary call carries a deadline; failures come back as Error{status code, server message}.
// Streams: subscribe() (state frames decoded with the shared codec, reconnecting with backoff) and
// interact() (tool commands and force replies).
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "client-cpp/client/result.h"
#include "client-cpp/client/state_subscription.h"
#include "client-cpp/client/tool_stream.h"
#include "softbody/v1/simulation_service.grpc.pb.h"

namespace softbody::client {

namespace v1 = softbody::v1;

struct ClientOptions {
  std::string address = "127.0.0.1:50051";
  std::chrono::milliseconds deadline{10000};  // per unary call
  int max_message_mb = 64;                    // receive limit (snapshots of large bodies)
};

// The surface the server streams, with the rest shape.
struct Topology {
  int num_vertices = 0;
  std::vector<std::uint32_t> surface_vertex_ids;  // simulated ids, in surface-frame order
  std::vector<std::uint32_t> triangles;           // 3 per triangle, into surface_vertex_ids
  std::vector<double> rest_positions;             // 3 per vertex, all vertices [m]
  std::vector<std::uint32_t> tetrahedra;          // when asked for
  double bounds_min[3] = {0, 0, 0}, bounds_max[3] = {0, 0, 0};

  // Rest positions of the surface vertices, in surface-frame order (3 per vertex).
  std::vector<float> surface_rest_positions() const;
};

class Client {
 public:
  explicit Client(ClientOptions options);

  const ClientOptions& options() const { return options_; }
  const std::shared_ptr<grpc::Channel>& channel() const { return channel_; }
  v1::Simulation::Stub& stub() { return *stub_; }

  // Waits until the channel is connected (or the timeout passes).
  bool wait_until_connected(std::chrono::milliseconds timeout);

  Result<std::vector<v1::SceneEntry>> list_scenes();
  Result<v1::SessionInfo> create_session(const v1::CreateSessionRequest& request);
  // A shipped scene by name, or a scene document when `scene` names an existing .json file.
  Result<v1::SessionInfo> create_session(const std::string& scene,
                                         const std::vector<std::string>& overrides = {},
                                         bool start_paused = false, const std::string& label = "");
  Result<v1::SessionInfo> get_session(const std::string& id);
  Result<std::vector<v1::SessionInfo>> list_sessions();
  Result<Empty> delete_session(const std::string& id);
  Result<v1::SessionInfo> control(const std::string& id, v1::ControlAction action, int steps = 0);
  Result<v1::SessionInfo> update_settings(const std::string& id,
                                          const v1::SessionSettings& settings);
  Result<v1::Snapshot> snapshot(const std::string& id);
  Result<v1::SessionInfo> restore(const v1::Snapshot& snapshot, const std::string& label = "",
                                  bool start_paused = false);
  Result<Topology> topology(const std::string& id, bool include_tetrahedra = false);

  // Frames are handed to `on_frame` on the subscription's own thread.
  std::unique_ptr<StateSubscription> subscribe(const std::string& id, SubscriptionOptions options,
                                               StateSubscription::FrameHandler on_frame,
                                               StateSubscription::EndHandler on_end = {});
  // Replies are handed to `on_reply` on a gRPC thread (keep it short).
  std::unique_ptr<ToolStream> interact(const std::string& id, ToolStream::ReplyHandler on_reply,
                                       ToolStream::EndHandler on_end = {});

 private:
  std::unique_ptr<grpc::ClientContext> context() const;

  ClientOptions options_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::Simulation::Stub> stub_;
};

}  // namespace softbody::client
