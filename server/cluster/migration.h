// Moving a live session to another host (MigrateSession, `softbody-client migrate ID --to ADDR`):
// the session is paused here, its snapshot (state, settings, solver state) restored on the target
// under the same id, and only then removed here; its streams end with UNAVAILABLE and a
// SessionMoved detail that clients follow. If the target refuses, the session resumes here and
// nothing is lost.
#pragma once

#include <grpcpp/security/credentials.h>

#include <memory>
#include <string>

#include "server/sessions/session_manager.h"
#include "softbody/v1/cluster.pb.h"

namespace softbody::server {

// How this host dials another. TLS when this host speaks TLS itself (`own_tls`) or is given the
// authority its peers' certificates chain to (`peer_ca_file`, PEM; without it, the system's
// roots); cleartext otherwise (development on one machine). Throws std::runtime_error naming an
// unreadable file.
struct PeerDialing {
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  bool tls = false;
};
PeerDialing peer_dialing(bool own_tls, const std::string& peer_ca_file);

// Throws ApiError: NOT_FOUND (session), INVALID_ARGUMENT / UNAVAILABLE / the target's own refusal
// naming "target". `authorization`: the metadata value the target is asked with (the migrating
// admin's bearer token; "" without authentication). The session keeps its owner.
// `host`: this host's name, recorded as the snapshot's saver.
v1::MigrateSessionResponse migrate_session(SessionManager& sessions, const std::string& id,
                                           const std::string& target, const PeerDialing& dialing,
                                           const std::string& host,
                                           const std::string& authorization = "");

}  // namespace softbody::server
