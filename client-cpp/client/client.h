// softbody::client::Client: a small typed API over the generated gRPC stubs (docs/client-cpp.md).
// Every unary call carries a deadline; failures come back as Error{status code, server message}.
// Streams: subscribe() (state frames decoded with the shared codec, reconnecting with backoff) and
// interact() (tool commands and force replies).
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
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
  // Other hosts of the same cluster (sharing a snapshot store), tried in turn when the current one
  // goes away: a session drained there is restored by whichever host is asked for it.
  std::vector<std::string> fallback_addresses;
  // After creating a session, talk to the host that holds it (SessionInfo.host_grpc_address, set
  // by hosts started with --advertise-grpc) rather than the load-balanced address it came through.
  bool follow_host = false;
  // Told when the client switches host (following a moved session or a host that went away).
  std::function<void(const std::string& address, const std::string& why)> on_switch;
  std::chrono::milliseconds deadline{10000};  // per unary call
  // Sent on every call as "authorization: Bearer TOKEN" when the server requires one
  // (docs/security.md). Empty: none.
  std::string bearer_token;
  // PEM file of the certificate authority the server's TLS certificate chains to: the client
  // speaks TLS (gRPC over HTTP/2 with TLS). Empty: cleartext.
  std::string tls_ca_file;
  int max_message_mb = 64;  // receive limit (snapshots of large bodies)

  // Sets `address` and `fallback_addresses` from a command line's "A,B,C" (A first).
  void set_servers(const std::string& comma_separated);
  // Sets `bearer_token` from a file holding it (surrounding whitespace ignored; a file, not a
  // flag value, so the secret does not show in process listings), or from the environment
  // variable SOFTBODY_TOKEN when `path` is empty. Throws std::runtime_error naming the file.
  void load_token(const std::string& path);
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
  std::shared_ptr<grpc::Channel> channel() const;
  // The stub of the current host. A reference stays valid for the client's lifetime (stubs of
  // earlier hosts are kept), so streams opened on it may finish there.
  v1::Simulation::Stub& stub();
  std::string address() const;
  // The current host's stub and address, read together (a stream remembers where it went).
  struct Host {
    v1::Simulation::Stub& stub;
    std::string address;
  };
  Host host();

  // After a failed call or ended stream: switches to where the session went (a SessionMoved
  // detail), or to the next fallback address when the host went away (UNAVAILABLE, drained).
  // True when the caller should try again (on the new host). `asked_host`: the address the
  // failed call went to; when the client has left it already, the call just tries again.
  bool follow(const Error& error, const std::string& asked_host = {});
  // Moves session `id` to the host at `target` (MigrateSession) and follows it there.
  Result<v1::MigrateSessionResponse> migrate(const std::string& id, const std::string& target);
  Result<v1::ServerStatus> server_status();
  // The "authorization" metadata value ("Bearer TOKEN"; "" without a token).
  std::string authorization() const;
  // Adds it (if any) to a call's metadata.
  void authorize(grpc::ClientContext& context) const;

  // Waits until the channel is connected (or the timeout passes).
  bool wait_until_connected(std::chrono::milliseconds timeout);

  // ListScenes' whole answer: the scenes and the tool surfaces, in one call.
  Result<v1::ListScenesResponse> scene_catalog();
  Result<std::vector<v1::SceneEntry>> list_scenes();
  // The tool surfaces the server offers (ToolShape MESH, ToolCommand.tool_mesh), in metres.
  Result<std::vector<v1::ToolMeshEntry>> list_tool_meshes();
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
  std::shared_ptr<grpc::ChannelCredentials> credentials_;  // TLS with tls_ca_file, else cleartext
  std::unique_ptr<grpc::ClientContext> context() const;
  void connect(const std::string& address);  // call with mutex_ held
  // Talks to `address` from now on (and tells on_switch why); false if it is the current host.
  bool switch_to(const std::string& address, const std::string& why);
  // A call on a session, retried once on the host the session moved to.
  template <typename Call>
  grpc::Status session_call(Call&& call) {
    Host asked = host();
    grpc::Status status = call(asked.stub);
    if (!status.ok() && follow(Error::from(status), asked.address)) status = call(stub());
    return status;
  }

  ClientOptions options_;
  mutable std::mutex mutex_;
  std::string address_;  // the current host
  std::shared_ptr<grpc::Channel> channel_;
  v1::Simulation::Stub* stub_ = nullptr;
  std::vector<std::unique_ptr<v1::Simulation::Stub>> stubs_;  // every host's, kept (see stub())
};

}  // namespace softbody::client
