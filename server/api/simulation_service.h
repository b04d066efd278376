// The gRPC service softbody.v1.Simulation: unary calls and StreamState on the synchronous API
// (a stream parks one thread while it waits for frames), Interact on the callback API so that a
// haptic command is answered as soon as it is read, and a stream can be ended with a clear status
// from any thread (session deletion, shutdown).
#pragma once

#include "server/auth/authenticator.h"
#include "server/auth/quota.h"
#include "server/cluster/host_status.h"
#include "server/cluster/migration.h"
#include "server/sessions/session_manager.h"
#include "softbody/v1/simulation_service.grpc.pb.h"

namespace softbody::server {

struct StreamLimits {
  double max_rate_hz = 1000;
  int max_pending_replies = 8192;  // an Interact client that stops reading is disconnected
};

class SimulationService final : public softbody::v1::Simulation::WithCallbackMethod_Interact<
                                    softbody::v1::Simulation::Service> {
 public:
  // `auth`: who may call (nullptr: development mode, everyone is an anonymous admin).
  SimulationService(SessionManager& sessions, Metrics& metrics, StreamLimits limits = {},
                    const Authenticator* auth = nullptr);
  // The synchronous Interact is disabled by the callback one below.
  using softbody::v1::Simulation::WithCallbackMethod_Interact<
      softbody::v1::Simulation::Service>::Interact;

  grpc::Status ListScenes(grpc::ServerContext*, const v1::ListScenesRequest*,
                          v1::ListScenesResponse*) override;
  grpc::Status CreateSession(grpc::ServerContext*, const v1::CreateSessionRequest*,
                             v1::SessionInfo*) override;
  grpc::Status GetSession(grpc::ServerContext*, const v1::GetSessionRequest*,
                          v1::SessionInfo*) override;
  grpc::Status ListSessions(grpc::ServerContext*, const v1::ListSessionsRequest*,
                            v1::ListSessionsResponse*) override;
  grpc::Status DeleteSession(grpc::ServerContext*, const v1::DeleteSessionRequest*,
                             v1::DeleteSessionResponse*) override;
  grpc::Status ControlSession(grpc::ServerContext*, const v1::ControlSessionRequest*,
                              v1::SessionInfo*) override;
  grpc::Status UpdateSettings(grpc::ServerContext*, const v1::UpdateSettingsRequest*,
                              v1::SessionInfo*) override;
  grpc::Status SnapshotSession(grpc::ServerContext*, const v1::SnapshotRequest*,
                               v1::Snapshot*) override;
  grpc::Status GetTopology(grpc::ServerContext*, const v1::GetTopologyRequest*,
                           v1::Topology*) override;
  grpc::Status StreamState(grpc::ServerContext*, const v1::StreamStateRequest*,
                           grpc::ServerWriter<v1::StateFrame>*) override;
  grpc::ServerBidiReactor<v1::ToolCommand, v1::ForceReply>* Interact(
      grpc::CallbackServerContext* context) override;
  grpc::Status GetServerStatus(grpc::ServerContext*, const v1::GetServerStatusRequest*,
                               v1::ServerStatus*) override;
  grpc::Status MigrateSession(grpc::ServerContext*, const v1::MigrateSessionRequest*,
                              v1::MigrateSessionResponse*) override;

  // The unary calls for a caller already authenticated (the gRPC handlers above authenticate
  // from the call's metadata; the browser gateway once per connection).
  grpc::Status ListScenes(const Caller&, const v1::ListScenesRequest*, v1::ListScenesResponse*);
  grpc::Status CreateSession(const Caller&, const v1::CreateSessionRequest*, v1::SessionInfo*);
  grpc::Status GetSession(const Caller&, const v1::GetSessionRequest*, v1::SessionInfo*);
  grpc::Status ListSessions(const Caller&, const v1::ListSessionsRequest*,
                            v1::ListSessionsResponse*);
  grpc::Status DeleteSession(const Caller&, const v1::DeleteSessionRequest*,
                             v1::DeleteSessionResponse*);
  grpc::Status ControlSession(const Caller&, const v1::ControlSessionRequest*, v1::SessionInfo*);
  grpc::Status UpdateSettings(const Caller&, const v1::UpdateSettingsRequest*, v1::SessionInfo*);
  grpc::Status SnapshotSession(const Caller&, const v1::SnapshotRequest*, v1::Snapshot*);
  grpc::Status GetTopology(const Caller&, const v1::GetTopologyRequest*, v1::Topology*);
  grpc::Status GetServerStatus(const Caller&, const v1::GetServerStatusRequest*, v1::ServerStatus*);

  const Authenticator& authenticator() const { return auth_; }
  CallerStreams& caller_streams() { return streams_; }

  // This host's advertised addresses (known once it listens).
  HostIdentityCell identity;
  // How MigrateSession dials the target (set before the server starts; cleartext by default).
  PeerDialing peer_dialing{grpc::InsecureChannelCredentials(), false};

 private:
  // The caller of a gRPC call (UNAUTHENTICATED when its token is missing or bad).
  Caller caller_of(const grpc::ServerContextBase* context) const;

  SessionManager& sessions_;
  Metrics& metrics_;
  StreamLimits limits_;
  const Authenticator& auth_;
  CallerStreams streams_{metrics_};
};

// Session facts for the API (also used by the browser gateway later).
void fill_session_info(const Session& session, v1::SessionInfo& info);

}  // namespace softbody::server
